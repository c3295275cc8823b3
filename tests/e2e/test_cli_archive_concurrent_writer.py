"""Archive, then clean, through the CLI, on a v8 merge-on-read table with a concurrent writer: a
deltacommit D requested before a compaction C and completed after it (normal on v8: Flink, or a
compaction beside a live writer). One apply archives D; the next apply's clean must keep D's log
files, which belong to C's slice by D's completion time (read back from the LSM history, as
Hudi's CompletionTimeQueryViewV2 does), and the apply after that compacts them: hudi reads every
row as generated, none lost.

(hudi-rs does not read the LSM history, so it is asked before the archival and after the
compaction.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import CompactSlice, NodePlan
from maintainer.cli import main
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.table.state import open_table
from tests.support import artifacts, oracle
from tests.support.clean_checks import data_files
from tests.support.concurrent_writer import ConcurrentWriterTable, concurrent_writer_table, log_files_of
from tests.support.plans import files_to_delete

pytestmark = pytest.mark.spark

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
ARCHIVE_ONLY = (
    "compaction: {enabled: false}\n    clean: {enabled: false}\n"
    "    archive: {keep_min_commits: 2, keep_max_commits: 3}"
)
LATEST_VERSION_ONLY = "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}"
CLEAN_ONLY = f"compaction: {{enabled: false}}\n    {LATEST_VERSION_ONLY}\n    archive: {{enabled: false}}"
NO_ARCHIVE = "archive: {enabled: false}"
COMPACT_AND_CLEAN = (
    f"compaction: {{trigger: {{max_delta_commits: 1}}}}\n    {LATEST_VERSION_ONLY}\n    {NO_ARCHIVE}"
)


@dataclass
class Project:
    root: Path
    table: Path

    def use(self, services: str) -> None:
        table = f"  - name: t\n    path: {self.table}\n    metadata_table: drop\n    {services}\n"
        manifest = f"version: 1\ntables:\n{table}"
        (self.root / "tables" / "example.yml").write_text(manifest)

    def plan_and_apply(self) -> None:
        assert main(["plan", "--project-dir", str(self.root)]) == 0
        assert main(["apply", "--project-dir", str(self.root)]) == 0

    def node_result(self, node: str) -> dict[str, Any]:
        results = artifacts.run_results(self.root / "target")
        (found,) = [n for n in results["results"] if n["node"] == node]
        assert found["status"] == "success", found["message"]
        return dict(found)

    def planned(self, node: str) -> NodePlan:
        plan = artifacts.saved_plan(self.root / "target" / "plan").plan
        (found,) = [n for n in plan.nodes() if n.id == node]
        return found


@pytest.fixture
def make_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any) -> Callable[[Path], Project]:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(table: Path) -> Project:
        root = tmp_path / "project"
        assert main(["init", str(root)]) == 0
        return Project(root, table)

    return make


def hudi_rows(path: Path) -> list[dict[str, Any]]:
    return sorted(oracle.snapshot_rows(path, drop=META), key=lambda r: str(r["uuid"]))


def generated_rows(table: ConcurrentWriterTable) -> list[dict[str, Any]]:
    latest = table.generated.expected[table.generated.completed[-1]]
    return sorted(latest, key=lambda r: str(r["uuid"]))


def test_archive_then_clean_with_a_concurrent_writer_loses_no_row(
    make_project: Callable[[Path], Project], tmp_path: Path
) -> None:
    table = concurrent_writer_table(tmp_path / "lake" / "t")
    d = table.deltacommit.timestamp
    d_logs = log_files_of(table.path, d)
    assert d_logs and hudi_rows(table.path) == generated_rows(table)
    project = make_project(table.path)

    project.use(ARCHIVE_ONLY)
    project.plan_and_apply()
    assert project.node_result("t.archive")["adapter_response"]["instants_archived"]
    active = {i.timestamp for i in open_table(str(table.path)).snapshot.timeline.instants}
    assert d not in active and table.compaction.timestamp in active, "D archived, C still active"

    project.use(CLEAN_ONLY)
    project.plan_and_apply()
    assert project.node_result("t.clean")["adapter_response"]["files_deleted"] > 0, "the slices before C go"
    approved = files_to_delete(project.planned("t.clean"))
    assert not approved & d_logs, "D's log files are in C's slice, the latest: never deletable"
    assert d_logs <= data_files(table.path), "D's log files are still there"

    project.use(COMPACT_AND_CLEAN)
    project.plan_and_apply()
    slices = project.planned("t.compaction").actions_of(CompactSlice)
    compacted = {f.name for op in slices for f in op.log_files}
    assert {p.rsplit("/", 1)[-1] for p in d_logs} <= compacted, "the next compaction takes D's log files"
    assert project.node_result("t.compaction")["adapter_response"]["slices_compacted"] == 2
    assert hudi_rows(table.path) == generated_rows(table), "no row lost"
