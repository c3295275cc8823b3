"""Hostile input is refused with a clear error, never a traceback or a blown memory (issue 29,
item 4), through the CLI on generated tables.

A table's hostile file (a timeline file named with an impossible date, a commit nested 100,000
deep or 1.5 GB large, a 600 MB ``hoodie.properties``) blocks that table only: the other table of the lake is
planned and the plan is written. A hostile ``plan.json`` (nested 100,000 deep, a 100,000-digit
number, 1.5 GB) is refused by ``apply`` and ``show``; a 300 MB lock object by ``apply``, before
Spark starts. The big files are sparse (``truncate``): they cost no disk, and the refusal is
proven to come from their size, before their bytes are read.

No test starts Spark: ``plan`` never does, and every ``apply`` here is refused before it would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.lock import LOCK_PATH
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage

TABLES = ("a", "b")
SERVICES = "clean: {commits_retained: 1}\n    archive: {enabled: false}"
MiB = 1024 * 1024


@pytest.fixture
def lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project (``maintainer init``) over two generated COW tables ``a`` and ``b``."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    yield root


def write_lake(root: Path, version: int) -> dict[str, Path]:
    tables = {}
    entries = []
    for seed, name in enumerate(TABLES, start=40):
        path = root.parent / name
        workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=seed)
        generate(str(path), DatagenSpec(name, "cow", version, workload))
        tables[name] = path
        entries.append(f"  - name: {name}\n    path: {path}\n    {SERVICES}\n")
    (root / "tables" / "example.yml").write_text("version: 1\ntables:\n" + "".join(entries))
    return tables


def plan_json(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "target" / "plan" / "plan.json").read_text())
    return data


def nodes_of(root: Path, table: str) -> list[dict[str, Any]]:
    (found,) = [t for t in plan_json(root)["tables"] if t["name"] == table]
    nodes: list[dict[str, Any]] = found["nodes"]
    return nodes


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run the CLI; (exit code, stdout and stderr), asserting no traceback was printed."""
    capsys.readouterr()
    code = main(args)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text


def assert_only_a_is_blocked(root: Path, damaged: str, capsys: pytest.CaptureFixture[str]) -> str:
    """``plan`` exits 3 (blocked: a table could not be planned), writes the plan, blocks every
    node of table ``a`` naming ``damaged``, and plans table ``b`` as if nothing happened."""
    plan_file = root / "target" / "plan" / "plan.json"
    plan_file.unlink(missing_ok=True)
    code, text = run(["plan", "--project-dir", str(root)], capsys)
    assert code == 3, text
    assert plan_file.is_file()
    assert damaged in text
    for node in nodes_of(root, "a"):
        assert node["status"] == "blocked" and not node["actions"], node
        assert any(damaged in reason for reason in node["reasons"]), node["reasons"]
    b_nodes = {node["service"]: node for node in nodes_of(root, "b")}
    assert b_nodes["clean"]["status"] == "changes" and b_nodes["clean"]["actions"]
    assert all(node["status"] != "blocked" for node in b_nodes.values())
    return text


# -- a table's hostile files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "name"),
    [
        (6, "20261301000000000.commit.requested"),  # month 13
        (6, "20260132000000000.clean.requested"),  # day 32
        (8, "20260101250000000.commit.requested"),  # hour 25
        (8, "20260101000000000_20269901000000000.commit"),  # a completion time in month 99
    ],
    ids=["month-13", "day-32", "hour-25", "completion-month-99"],
)
def test_a_timeline_file_named_with_an_impossible_date_blocks_only_its_table(
    lake: Path, capsys: pytest.CaptureFixture[str], version: int, name: str
) -> None:
    """It used to crash ``plan`` for the whole lake (ValueError from strptime) and write no plan."""
    tables = write_lake(lake, version)
    timeline = open_table(str(tables["a"])).snapshot.config.timeline_dir
    (tables["a"] / timeline / name).write_bytes(b"")
    text = assert_only_a_is_blocked(lake, name, capsys)
    assert "is not a date and time" in text


def test_a_commit_nested_100000_deep_blocks_only_its_table(
    lake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to crash ``plan`` for the whole lake (RecursionError in the JSON decoder)."""
    tables = write_lake(lake, 6)
    snapshot = open_table(str(tables["a"])).snapshot
    relative = snapshot.timeline.file_path(snapshot.timeline.completed_commits()[-1])
    depth = 100_000
    (tables["a"] / relative).write_text('{"partitionToWriteStats": ' + "[" * depth + "]" * depth + "}")
    text = assert_only_a_is_blocked(lake, relative, capsys)
    assert "nested 100,001 deep (at most 128 are read)" in text


def test_a_600_mb_hoodie_properties_blocks_only_its_table_unread(
    lake: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It used to be read whole (600 MB, then parsed line by line). Now its size refuses it: no
    whole-file read of it happens (the spy), and the message gives the cap."""
    tables = write_lake(lake, 6)
    properties = tables["a"] / ".hoodie" / "hoodie.properties"
    os.truncate(properties, 600 * MiB)
    read_whole: list[str] = []
    real_read = Storage.read_bytes

    def spy(self: Storage, path: str) -> bytes:
        read_whole.append(self.uri(path))
        return real_read(self, path)

    monkeypatch.setattr(Storage, "read_bytes", spy)
    text = assert_only_a_is_blocked(lake, "hoodie.properties", capsys)
    assert "hoodie.properties is more than the 16,777,216 bytes maintainer reads" in text
    assert not [uri for uri in read_whole if uri.endswith(str(properties))]


@pytest.mark.parametrize("version", [6, 8])
def test_a_1_5_gb_commit_blocks_only_its_table_unread(
    lake: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    """The latest commit grown to 1.5 GB (sparse) used to be read whole, by the clean's scope
    and by the integrity check (then decoded). Now its size refuses it, unread."""
    tables = write_lake(lake, version)
    snapshot = open_table(str(tables["a"])).snapshot
    relative = snapshot.timeline.file_path(snapshot.timeline.completed_commits()[-1])
    os.truncate(tables["a"] / relative, 1536 * MiB)
    read_whole: list[str] = []
    real_read = Storage.read_bytes

    def spy(self: Storage, path: str) -> bytes:
        read_whole.append(self.uri(path))
        return real_read(self, path)

    monkeypatch.setattr(Storage, "read_bytes", spy)
    text = assert_only_a_is_blocked(lake, relative, capsys)
    assert "instant file is more than the 1,073,741,824 bytes maintainer reads" in text
    assert not [uri for uri in read_whole if uri.endswith(relative)]


def test_a_300_mb_lock_object_fails_apply_before_spark_unread(
    lake: Path, capsys: pytest.CaptureFixture[str], sessions: list[object]
) -> None:
    """The lock object used to be read whole (300 MB) by apply. Now its size, asked first,
    refuses it: the message says how large it is; Spark never starts; no table changes."""
    tables = write_lake(lake, 6)
    assert run(["plan", "--project-dir", str(lake)], capsys)[0] == 0
    lock = tables["a"] / LOCK_PATH
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.touch()
    os.truncate(lock, 300 * MiB)
    before = {p: p.stat().st_mtime_ns for t in tables.values() for p in t.rglob("*") if p.is_file()}
    code, text = run(["apply", "--project-dir", str(lake)], capsys)
    assert code == 1, text
    assert "table_lock.json" in text
    assert "is 314,572,800 bytes, more than" in text  # the size, known before any byte is read
    assert sessions == []
    after = {p: p.stat().st_mtime_ns for t in tables.values() for p in t.rglob("*") if p.is_file()}
    assert after == before


# -- a hostile plan.json ---------------------------------------------------------------------------


def deep_plan(path: Path) -> str:
    depth = 100_000
    path.write_text('{"format_version": 1, "tables": ' + "[" * depth + "]" * depth + "}")
    return "nested 100,001 deep (at most 128 are read)"


def long_number_plan(path: Path) -> str:
    path.write_text('{"format_version": 1' + "0" * 100_000 + "}")
    return "a number literal of 100,001 characters (at most 256 are read)"


def huge_plan(path: Path) -> str:
    os.truncate(path, 1536 * MiB)
    return "plan.json is 1,610,612,736 bytes, more than the 1,073,741,824 bytes maintainer reads"


@pytest.mark.parametrize("command", ["apply", "show"])
@pytest.mark.parametrize(
    "attack", [deep_plan, long_number_plan, huge_plan], ids=["deep", "long-number", "1.5GB"]
)
def test_a_hostile_plan_json_is_refused_with_a_clear_message(
    lake: Path, capsys: pytest.CaptureFixture[str], sessions: list[object], command: str, attack: Any
) -> None:
    """Nested 100,000 deep (RecursionError) and a 100,000-digit number (ValueError from int)
    used to be tracebacks; a 1.5 GB plan.json was read whole (then decoded: over 3 GB)."""
    tables = write_lake(lake, 6)
    assert run(["plan", "--project-dir", str(lake)], capsys)[0] == 0
    plan_dir = lake / "target" / "plan"
    expected = attack(plan_dir / "plan.json")
    before = {p: p.stat().st_mtime_ns for t in tables.values() for p in t.rglob("*") if p.is_file()}
    args = (
        ["apply", str(plan_dir), "--project-dir", str(lake)]
        if command == "apply"
        else ["show", str(plan_dir)]
    )
    code, text = run(args, capsys)
    assert code == 1, text
    assert str(plan_dir / "plan.json") in text
    assert expected in text.replace("\n", " ")
    assert "hint: make the plan again" in text
    assert sessions == []
    after = {p: p.stat().st_mtime_ns for t in tables.values() for p in t.rglob("*") if p.is_file()}
    assert after == before
