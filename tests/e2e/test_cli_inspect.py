"""``maintainer inspect`` through the CLI: against an independent raw listing of every fixture,
its records against the oracle, and bad input (a clear error naming the file, exit 1)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from tests.support import oracle
from tests.support.fixtures import FixtureTable, fixture_names

pytestmark = pytest.mark.fixtures

DATA_FILE = re.compile(r"^(\.[^/]+\.log\.\d+_\d+-\d+-\d+|[^.][^/]*_\d+-\d+-\d+_\d{17}\.(parquet|lance))$")
COMPLETED = re.compile(
    r"^(\d{17})(?:_(\d{17}))?\.(commit|deltacommit|replacecommit|clean|rollback|savepoint|indexing)$"
)
PENDING = re.compile(r"^(\d{17})(?:\.[a-z]+)?\.(requested|inflight)$")
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main(["inspect", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def raw_data_files(root: Path) -> set[str]:
    """Every base and log file below the table root, by walking the directory ourselves."""
    found = set()
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".hoodie") and d != "__MACOSX"]
        for name in files:
            if DATA_FILE.match(name):
                found.add(str((Path(directory) / name).relative_to(root)))
    return found


def listed_files(state: dict[str, Any]) -> list[str]:
    files: list[str] = []
    for partition in state["partitions"]:
        prefix = f"{partition['path']}/" if partition["path"] else ""
        for group in partition["file_groups"]:
            for file_slice in group["slices"]:
                names = ([file_slice["base_file"]] if file_slice["base_file"] else []) + file_slice[
                    "log_files"
                ]
                files += [prefix + name for name in names]
    uncommitted: list[str] = state["uncommitted_files"]
    return files + uncommitted


def raw_instant_times(root: Path, layout: int) -> tuple[set[str], set[str]]:
    timeline = root / ".hoodie" / ("timeline" if layout == 2 else "")
    names = [p.name for p in timeline.iterdir() if p.is_file()]
    completed = {m.group(1) for n in names if (m := COMPLETED.match(n))}
    started = {m.group(1) for n in names if (m := PENDING.match(n))}
    return completed, started - completed


@pytest.mark.parametrize("name", fixture_names())
def test_inspect_lists_every_data_file_once_and_every_instant(
    name: str, fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_table(name).path
    state = run_json(capsys, str(root))
    listed = listed_files(state)
    assert sorted(listed) == sorted(raw_data_files(root)), "each file exactly once"
    completed, pending = raw_instant_times(root, state["table"]["timeline_layout"])
    assert {i["timestamp"] for i in state["instants"] if i["state"] == "COMPLETED"} == completed
    assert {i["timestamp"] for i in state["instants"] if i["state"] != "COMPLETED"} == pending
    assert state["table"]["version"] in (6, 8, 9)


def test_inspect_text_summary_names_the_table_and_its_timeline(
    fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(fixture_table(TRIPS_V8).path)]) == 0
    out = capsys.readouterr().out
    assert "v8_trips_8i3u1d" in out and "MERGE_ON_READ" in out and "compaction" in out


@pytest.mark.parametrize(("options", "as_of", "read_optimized"),
                         [((), None, False), (("--as-of", "20251220210123755"), "20251220210123755", False),
                          (("--read-optimized",), None, True)])  # fmt: skip
def test_inspect_records_equal_the_oracle(
    options: tuple[str, ...],
    as_of: str | None,
    read_optimized: bool,
    fixture_table: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = fixture_table(TRIPS_V8).path
    assert main(["inspect", str(root), "--records", *options]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = oracle.snapshot_rows(root, as_of=as_of, read_optimized=read_optimized)
    assert sorted(r["uuid"] for r in rows) == sorted(r["uuid"] for r in expected)
    assert {r["uuid"]: r["fare"] for r in rows} == {r["uuid"]: r["fare"] for r in expected}


# -- bad input: exit 1, one clear message naming the file, no traceback ---------------------


def inspect_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["inspect", *args]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_missing_properties_is_not_a_hudi_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = inspect_error(capsys, str(tmp_path))
    assert "not a Hudi table" in err and str(tmp_path) in err


def test_empty_properties_file_is_reported(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy("sample_table_cow_v6_nonpartitioned").path
    (root / ".hoodie" / "hoodie.properties").write_text("#only a comment\n")
    err = inspect_error(capsys, str(root))
    assert "hoodie.properties" in err and "empty" in err


def test_unsupported_table_version_names_it_and_what_is_supported(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy("sample_table_cow_v6_nonpartitioned").path
    properties = root / ".hoodie" / "hoodie.properties"
    properties.write_text(properties.read_text().replace("hoodie.table.version=6", "hoodie.table.version=5"))
    err = inspect_error(capsys, str(root))
    assert "table version 5 is not supported" in err and "6, 8, 9" in err
    hint = err.split("hint:", 1)[1]
    assert "upgrade_table" in hint and "6, 8, 9" in hint  # the hint names every version, 9 too


def test_corrupt_instant_file_names_the_file(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy("sample_table_cow_v9_txns_simple_nometa").path
    replace = next((root / ".hoodie" / "timeline").glob("*_*.replacecommit"))
    replace.write_bytes(b"Obj\x01garbage")
    err = inspect_error(capsys, str(root))
    assert replace.name in err


def test_truncated_log_block_is_named_when_records_are_read(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy(TRIPS_V8).path
    log = next(root.glob("city=sao_paulo/.*.log.*"))
    log.write_bytes(log.read_bytes()[:-40])
    assert main(["inspect", str(root), "--records"]) == 0
    err = capsys.readouterr().err
    assert log.name in err and "corrupt log block" in err


def test_truncated_log_block_stops_a_strict_read(fixture_copy: Callable[[str], FixtureTable]) -> None:
    from maintainer.errors import CorruptFileError
    from maintainer.hudi.records.reader import read_table
    from maintainer.hudi.table.state import open_table

    root = fixture_copy(TRIPS_V8).path
    log = next(root.glob("city=sao_paulo/.*.log.*"))
    log.write_bytes(log.read_bytes()[:-40])
    with pytest.raises(CorruptFileError, match="corrupt log block") as info:
        read_table(open_table(str(root), verify=False))
    assert log.name in str(info.value)


def test_as_of_without_records_is_a_usage_error(
    fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(fixture_table(TRIPS_V8).path), "--as-of", "1"]) == 64
