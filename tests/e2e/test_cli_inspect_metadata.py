"""``maintainer inspect`` on tables with a metadata table: it shows the metadata table, and
``--check-metadata`` exits 0 when it matches the table and 1, naming each difference, when not."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from maintainer.cli import main
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
NO_METADATA = "sample_table_mor_avro_v9_txns_simple_nometa"


def test_inspect_shows_the_metadata_table_and_the_check_passes(
    fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(fixture_table(MOR_V9).path)
    assert main(["inspect", path, "--check-metadata"]) == 0
    out = capsys.readouterr().out
    assert "metadata table" in out and "column_stats" in out and "record_index" in out
    assert "in sync (19 files match storage)" in out
    assert main(["inspect", path, "--check-metadata", "--format", "json"]) == 0
    mdt = json.loads(capsys.readouterr().out)["metadata_table"]
    assert mdt["check"] == {"passed": True, "files_checked": 19, "differences": []}
    assert mdt["latest_compaction"] == "20260307162612567"
    assert {p["name"] for p in mdt["partitions"]} >= {"files", "column_stats", "partition_stats"}


def test_check_metadata_exits_1_with_the_differences(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    table = fixture_copy(MOR_V9)
    victim = sorted(p for p in table.path.rglob("*.parquet") if ".hoodie" not in p.parts)[0]
    victim.unlink()
    assert main(["inspect", str(table.path), "--check-metadata"]) == 1
    out = capsys.readouterr().out
    assert "out of sync" in out
    assert f"{victim.parent.name}/{victim.name}: listed by the metadata table" in out
    assert main(["inspect", str(table.path)]) == 0  # without the flag: shows, does not judge


def test_check_metadata_on_a_table_without_one_says_there_is_nothing_to_check(
    fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: a fleet script checks every table; one without a metadata table is not an
    error (it was exit 64): exit 0, and the output says nothing was checked."""
    path = str(fixture_table(NO_METADATA).path)
    assert main(["inspect", path, "--check-metadata"]) == 0
    assert "metadata table: none (no metadata table to check)" in capsys.readouterr().out
    assert main(["inspect", path, "--check-metadata", "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["metadata_table"]["check"] == {"passed": True, "skipped": "no metadata table to check"}
