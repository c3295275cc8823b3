"""Orphan files through the CLI: plan lists each old orphan (with size, age and why), leaves
young files, pending instants' files and what the metadata table lists alone; apply removes
only what is still an orphan under the lock (or moves it into the quarantine, and
``maintainer quarantine restore`` brings the same bytes back); ``hudi`` reads the same rows
throughout; nothing is removed under ``min_age`` or through an edited plan."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.state import open_table
from tests.e2e.test_cli_hardening_plan import node_of, rewrite_plan
from tests.support import oracle
from tests.support.fixtures import FixtureTable, base_files
from tests.support.metadata_tables import SETTINGS, Project, assert_metadata_in_step

pytestmark = pytest.mark.fixtures

COW_V8 = "sample_table_cow_v8_simplekeygen_nonhivestyle"
MOR_V6 = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)
DAY = 86400


@pytest.fixture
def make_project(
    bare_project: Callable[[Path, str], Path], monkeypatch: pytest.MonkeyPatch
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    return lambda table, services: Project(bare_project(table, services), table)


def _age(path: Path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Planted:
    """Orphans of each kind planted beside a table's own files."""

    def __init__(self, table: Path) -> None:
        state = open_table(str(table))
        original = next(base_files(FixtureTable(table.name, table)))
        file_id, _token, rest = original.name.split("_", 2)
        instant = rest.split(".")[0]
        latest = max(i.timestamp for i in state.snapshot.timeline.instants)
        self.retried = original.with_name(f"{file_id}_9-9-9_{rest}")
        self.ghost = original.with_name(f"{file_id}_0-1-0_{int(latest) + 1000}.parquet")
        self.young = original.with_name(f"{file_id}_0-1-0_{int(latest) + 2000}.parquet")
        self.marker = (
            table / ".hoodie" / ".temp" / instant / f"{file_id}_0-1-0_{instant}.parquet.marker.CREATE"
        )
        for copy in (self.retried, self.ghost, self.young):
            shutil.copy(original, copy)
        self.marker.parent.mkdir(parents=True)
        self.marker.write_text("")
        for path in self.old:
            _age(path, 10)
        self.digests = {path: _digest(path) for path in self.old}

    @property
    def old(self) -> tuple[Path, ...]:
        return (self.retried, self.ghost, self.marker)


def _relative(table: Path, path: Path) -> str:
    return path.relative_to(table).as_posix()


@pytest.mark.parametrize("name", [COW_V8, MOR_V6, MOR_V9])
def test_plan_lists_the_old_orphans_and_apply_deletes_only_them(
    name: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(name).path
    rows = oracle.snapshot_rows(path)
    planted = Planted(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 7d}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.orphan_files"]
    assert node["status"] == "changes"
    removals = [a for a in node["actions"] if a["kind"] == "remove_orphan_file"]
    targets = {a["target"]: a for a in removals}
    assert set(targets) == {_relative(path, p) for p in planted.old}
    assert targets[_relative(path, planted.ghost)]["orphan"] == "dangling"
    assert targets[_relative(path, planted.retried)]["orphan"] == "not_in_write_stats"
    assert targets[_relative(path, planted.marker)]["orphan"] == "markers"
    assert all(a["age_seconds"] >= 9 * DAY for a in removals)
    assert node["effect"]["left_young"] == 1 and node["effect"]["quarantine"] is None
    assert "1 file(s) left alone: younger than min_age 1w" in node["reasons"]
    plan_md = (project.root / "target" / "plan" / "plan.md").read_text()
    assert "orphan files to remove" in plan_md

    assert project.cli("apply") == 0, project.results()
    assert not any(p.exists() for p in planted.old)
    assert planted.young.exists()
    result = project.results()["t.orphan_files"]
    assert result["adapter_response"]["orphan_files_removed"] == 3
    assert oracle.snapshot_rows(path) == rows
    if (path / ".hoodie" / "metadata").exists():
        assert_metadata_in_step(path)
    assert project.cli("plan") == 0
    assert project.nodes()["t.orphan_files"]["status"] == "no_op"


def test_quarantine_moves_them_and_restore_brings_the_same_bytes_back(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(COW_V8).path
    rows = oracle.snapshot_rows(path)
    planted = Planted(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 7d, quarantine: .quarantine}}")
    assert project.cli("plan") == 0
    assert project.nodes()["t.orphan_files"]["effect"]["quarantine"] == ".hoodie/.quarantine"
    assert project.cli("apply") == 0, project.results()
    assert not any(p.exists() for p in planted.old)
    (batch,) = (path / ".hoodie" / ".quarantine").iterdir()
    assert json.loads((batch / "batch.json").read_text())["files"]
    assert oracle.snapshot_rows(path) == rows

    assert project.cli("quarantine", "list") == 0
    assert project.cli("quarantine", "restore", "--select", "t", "--batch", batch.name) == 0
    assert {p: _digest(p) for p in planted.old} == planted.digests
    assert not batch.exists()  # (the table is as planted again: hudi-rs refuses the retried file)


def test_apply_removes_nothing_a_pending_write_has_taken_since_the_plan(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    """A dangling file whose instant a writer has since requested is that writer's: drift."""
    path = fixture_copy(COW_V8).path
    planted = Planted(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 7d}}")
    assert project.cli("plan") == 0
    state = open_table(str(path))
    ghost_instant = planted.ghost.name.rsplit("_", 1)[1].split(".")[0]
    writer = TimelineWriter(state.storage, state.snapshot.config)
    writer.create_requested(Action.COMMIT, instant_time=ghost_instant)
    assert project.cli("apply") == 2, project.results()  # drift: approved work left undone
    assert planted.ghost.exists()
    assert not planted.retried.exists()
    drift = project.results()["t.orphan_files"]["drift"]
    assert [d["path"] for d in drift] == [_relative(path, planted.ghost)]


def test_an_edited_plan_removing_a_live_file_removes_nothing(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(COW_V8).path
    planted = Planted(path)
    live = next(base_files(FixtureTable(path.name, path)))
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 7d}}")
    assert project.cli("plan") == 0

    data = json.loads((project.root / "target" / "plan" / "plan.json").read_text())
    node_of(data, "t", "orphan_files")["actions"][0]["target"] = _relative(path, live)
    node_of(data, "t", "orphan_files")["actions"][0]["size"] = live.stat().st_size
    rewrite_plan(project.root, data)
    project.cli("apply")
    assert live.exists()
    assert planted.ghost.exists()  # nothing removed: the whole plan was refused


@pytest.mark.parametrize("min_age", ["30m", "0s"])
def test_a_min_age_under_an_hour_is_refused(
    min_age: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(COW_V8).path
    Planted(path)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: {min_age}}}")
    assert project.cli("plan") != 0
    assert not (project.root / "target" / "plan" / "plan.json").exists()


@pytest.mark.parametrize("quarantine", ["", ", quarantine: .quarantine"], ids=["delete", "quarantine"])
def test_a_link_planted_as_an_orphan_is_never_followed(
    quarantine: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    """A symbolic link named like a data file, pointing outside the table: neither it nor its
    target is removed or moved; apply says why and exits non-zero."""
    path = fixture_copy(COW_V8).path
    planted = Planted(path)
    outside = tmp_path / "outside.parquet"
    outside.write_bytes(b"not the table's")
    link = planted.ghost.with_name(planted.ghost.name.replace("_0-1-0_", "_0-2-0_"))
    link.symlink_to(outside)
    os.utime(link, (time.time() - 10 * DAY,) * 2, follow_symlinks=False)
    _age(outside, 10)
    project = make_project(path, f"{OFF}\norphan_files: {{min_age: 7d{quarantine}}}")
    assert project.cli("plan") == 0
    assert project.cli("apply") != 0
    assert outside.read_bytes() == b"not the table's" and link.is_symlink()
    drift = {d["path"]: d["reason"] for d in project.results()["t.orphan_files"]["drift"]}
    assert "symbolic link" in drift[_relative(path, link)]
    assert not planted.ghost.exists()  # the real orphans went
