"""``maintainer inspect`` on tables with a metadata table: it shows the metadata table, and
``--check-metadata`` exits 0 when it matches the table and 1, naming each difference, when not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from tests.support.fixtures import FixtureTable, metadata_fixture_names

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
    assert "index values compared with the data: 14 base file footer(s)" in out.replace("\n", " ")
    assert main(["inspect", path, "--check-metadata", "--format", "json"]) == 0
    mdt = json.loads(capsys.readouterr().out)["metadata_table"]
    assert mdt["check"] == {
        "passed": True,
        "files_checked": 19,
        "differences": [],
        "damaged_files": [],
        "problems": [],
        "record_index": {"keys_checked": 12, "missing": 0, "misplaced": 0, "extra": 0, "skipped": None},
        "indexes": {
            "footers_read": 14,
            "partition_stats_compared": 48,
            "secondary_index_records_compared": 24,
            "not_compared": [],
        },
    }
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


def _newest_log(table: FixtureTable, partition: str) -> Path:
    """The newest log file of a metadata partition (in its file group's latest slice)."""
    logs = [p for p in (table.path / ".hoodie" / "metadata" / partition).iterdir() if ".log." in p.name]
    return max(logs, key=lambda p: p.name.split("_")[1])


@pytest.mark.parametrize("partition", ["files", "column_stats", "partition_stats", "record_index"])
@pytest.mark.parametrize("damage", ["deleted", "truncated"])
def test_check_metadata_catches_a_damaged_metadata_log_file(
    fixture_copy: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
    partition: str,
    damage: str,
) -> None:
    """Issue 31: a metadata log file deleted or cut by hand passed the check (exit 0); Hudi then
    reads its records as never written (a record index missing keys makes upserts duplicate)."""
    table = fixture_copy(MOR_V9)
    victim = _newest_log(table, partition)
    if damage == "deleted":
        victim.unlink()
    else:
        victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    named = [p for p in problems if f".hoodie/metadata/{partition}/{victim.name}" in p]
    assert named, problems
    expected = "is not on storage" if damage == "deleted" else "committed log blocks are missing"
    assert expected in named[0]
    assert main(["inspect", str(table.path), "--check-metadata"]) == 1
    assert victim.name in capsys.readouterr().out.replace("\n", "")


def test_check_metadata_catches_a_deleted_metadata_base_file(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    table = fixture_copy(MOR_V9)
    victim = max((table.path / ".hoodie" / "metadata" / "record_index").glob("*.hfile"))
    victim.unlink()
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    expected = f"record_index/{victim.name}: metadata table base file is not on storage"
    assert any(expected in p for p in problems), problems


def test_check_metadata_catches_record_keys_missing_from_the_record_index(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """The record index's latest log file and its commit's trace in the metadata timeline are
    gone together (as if never written): no file is missing, but the keys it indexed are."""
    table = fixture_copy(MOR_V9)
    mdt = table.path / ".hoodie" / "metadata"
    newest = _newest_log(table, "record_index")
    instant = newest.name.split("_")[1].split(".")[0]
    for path in mdt.rglob(f"*{instant}*"):
        if path.is_file() and "hoodie_partition_metadata" not in path.name:
            path.unlink()
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    check = json.loads(capsys.readouterr().out)["metadata_table"]["check"]
    assert check["record_index"]["keys_checked"] == 12
    assert check["record_index"]["missing"] + check["record_index"]["misplaced"] > 0
    assert any(p.startswith("record_index: ") for p in check["problems"]), check["problems"]


@pytest.mark.parametrize("name", metadata_fixture_names())
def test_check_metadata_passes_on_every_fixture_with_a_metadata_table(
    fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Hudi's own tables are healthy: every part of the check passes on them."""
    assert main(["inspect", str(fixture_table(name).path), "--check-metadata", "--format", "json"]) == 0
    check = json.loads(capsys.readouterr().out)["metadata_table"]["check"]
    assert check["passed"] and check["problems"] == [] and check["damaged_files"] == []


def test_check_metadata_names_the_files_column_stats_no_longer_covers(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """The newest deltacommit's column_stats log files are deleted: the data files it wrote are
    listed, but have no statistics (data skipping misjudges them)."""
    table = fixture_copy(MOR_V9)
    instant = _newest_log(table, "column_stats").name.split("_")[1].split(".")[0]
    for log in (table.path / ".hoodie" / "metadata" / "column_stats").glob(f".*_{instant}.log.*"):
        log.unlink()
    written = sorted(p for p in table.path.rglob(f"*{instant}*") if ".hoodie" not in p.parts)
    assert written
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    for path in written:
        expected = f"{path.parent.name}/{path.name}: column_stats has no statistics for it"
        assert any(p.startswith(expected) for p in problems), (expected, problems)


def test_check_metadata_names_partitions_partition_stats_no_longer_covers(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """Every file of partition_stats is deleted: each is named, and so is each partition and
    column its statistics no longer cover (partition pruning would misjudge them)."""
    table = fixture_copy(MOR_V9)
    folder = table.path / ".hoodie" / "metadata" / "partition_stats"
    gone = [p for p in folder.iterdir() if p.name != ".hoodie_partition_metadata"]
    for path in gone:
        path.unlink()
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    hfile = next(p for p in gone if p.name.endswith(".hfile"))
    assert any(
        f"partition_stats/{hfile.name}: metadata table base file is not on storage" in p for p in problems
    )
    for partition in ("region=eu", "region=us", "region=apac"):
        expected = f"partition_stats: no statistics for column 'amount' of partition {partition}"
        assert any(p.startswith(expected) for p in problems), (expected, problems)


def test_check_metadata_on_a_cut_data_file_names_it_and_exits_1(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """A data base file cut short: its size differs from the listed one (named), and the record
    index is not judged from keys that cannot be read (said so), with no traceback."""
    table = fixture_copy(MOR_V9)
    victim = max((p for p in table.path.rglob("*.parquet") if ".hoodie" not in p.parts), key=lambda p: p.name)
    size = victim.stat().st_size
    victim.write_bytes(victim.read_bytes()[: size // 2])
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    check = json.loads(capsys.readouterr().out)["metadata_table"]["check"]
    expected = (
        f"{victim.parent.name}/{victim.name}: {size} bytes in the metadata table, {size // 2} on storage"
    )
    assert expected in check["problems"], check["problems"]
    assert check["record_index"]["skipped"].startswith("the data table's keys cannot be read")
