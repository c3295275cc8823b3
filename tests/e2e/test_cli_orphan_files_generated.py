"""Orphan files on generated tables (table versions 6, 8 and 9, copy-on-write and merge-on-read,
with and without a metadata table): a failed write whose instant files are gone (a writer
killed before its rollback, the timeline cleaned by hand) leaves dangling files; plan lists
them once old enough, apply removes them, ``hudi`` reads the same rows before and after, and
a crash between moves into the quarantine is finished by the next apply."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.metadata_tables import SETTINGS, Project, assert_metadata_in_step

OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)
OLD = time.time() - 10 * 86400


@pytest.fixture
def make_project(
    bare_project: Callable[[Path, str], Path], monkeypatch: pytest.MonkeyPatch
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    return lambda table, services: Project(bare_project(table, services), table)


def _with_a_forgotten_failed_write(path: Path, table_type: str, version: int, mdt: bool) -> list[Path]:
    """A generated table whose last write failed and whose instant files were then removed:
    the write's data files belong to no instant. Returns them, made 10 days old. (Version 6
    merge-on-read is left to the fixture tests: its log files are named by their slice's base
    instant, so a failed write's logs cannot be told by name here.)"""
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=3, rows_per_commit=20, seed=11)
    made = generate(
        str(path), DatagenSpec("t", table_type, version, workload, failed_write=True, metadata_table=mdt)
    )
    failed = made.failed_instant
    assert failed is not None
    dangling = [
        p for p in path.rglob(f"*{failed}*") if ".hoodie" not in p.relative_to(path).parts and p.is_file()
    ]
    assert dangling
    for instant_file in (path / ".hoodie").rglob(f"{failed}*"):
        if instant_file.is_file() and "metadata" not in instant_file.relative_to(path).parts:
            instant_file.unlink()
    for file in dangling:
        os.utime(file, (OLD, OLD))
    return dangling


@pytest.mark.parametrize(
    ("table_type", "version", "mdt"),
    [("cow", 6, False), ("cow", 8, True), ("mor", 8, False), ("mor", 8, True), ("mor", 9, False)],
    ids=["cow-v6", "cow-v8-mdt", "mor-v8", "mor-v8-mdt", "mor-v9"],
)
def test_a_forgotten_failed_write_s_files_are_removed_and_rows_stay(
    table_type: str, version: int, mdt: bool, make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    path = tmp_path / "lake" / "t"
    dangling = _with_a_forgotten_failed_write(path, table_type, version, mdt)
    rows = oracle.snapshot_rows(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 2d}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.orphan_files"]
    removals = {a["target"] for a in node["actions"] if a["kind"] == "remove_orphan_file"}
    assert removals == {p.relative_to(path).as_posix() for p in dangling}
    assert project.cli("apply") == 0, project.results()
    assert not any(p.exists() for p in dangling)
    assert oracle.snapshot_rows(path) == rows
    if mdt:
        assert_metadata_in_step(path)
    table = open_table(str(path))
    assert table.referenced is not None


@pytest.mark.parametrize("point", ["after_batch_record", "after_move"])
def test_a_crash_mid_quarantine_is_finished_by_the_next_apply(
    point: str, make_project: Callable[[Path, str], Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lake" / "t"
    dangling = _with_a_forgotten_failed_write(path, "mor", 8, False)
    rows = oracle.snapshot_rows(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 2d, quarantine: .quarantine}}")
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"orphan_files:{point}")
    assert project.cli("apply") == 1
    assert oracle.snapshot_rows(path) == rows
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("plan") == 0
    assert project.cli("apply") == 0, project.results()
    assert not any(p.exists() for p in dangling)
    assert oracle.snapshot_rows(path) == rows
    assert project.cli("quarantine", "restore", "--select", "t") == 0
    assert all(p.exists() for p in dangling)
    assert not any((path / ".hoodie" / ".quarantine").iterdir())
