"""Every registered service through the CLI: one ``plan`` + ``apply`` runs rollback ->
compaction -> clean -> archive in the graph's order on datagen merge-on-read tables, a crash
injected in any service is recovered by the next apply, and a savepoint made by ``apply``
keeps its files through a later clean (hudi reads checked before and after)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import LOCAL_WRITERS, DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.compaction.executor import run_compaction
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import decode_cleaner_plan
from maintainer.hudi.table.state import open_table
from maintainer.services.compaction.payload import build_compaction_plan
from tests.support import artifacts, oracle
from tests.support.clean_checks import data_files
from tests.support.compaction import CompactingWriter, schedule_compaction, writer_compaction
from tests.support.fixtures import FixtureTable
from tests.support.plans import files_to_delete

pytestmark = pytest.mark.spark

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
MDT_FIXTURE = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
EVERY_COMMIT = "compaction: {trigger: {max_delta_commits: 1}}"
ROLLBACK_NOW = "rollback: {min_age: 0s}"
LATEST_VERSION_ONLY = "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}"
ALL_SERVICES = (
    f"{ROLLBACK_NOW}\n    {EVERY_COMMIT}\n    clean: {{commits_retained: 2}}\n"
    "    archive: {keep_min_commits: 4, keep_max_commits: 6}"
)


@dataclass
class Project:
    root: Path
    table: Path

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def plan_and_apply(self) -> int:
        assert self.cli("plan") == 0
        return self.cli("apply")

    def run_results(self) -> dict[str, Any]:
        return artifacts.run_results(self.root / "target")

    def ran(self) -> list[tuple[str, str]]:
        """(node id, status) of the last apply, in the order the nodes started."""
        nodes = sorted(self.run_results()["results"], key=lambda n: [t["started_at"] for t in n["timing"]])
        return [(n["node"], n["status"]) for n in nodes]

    def node_result(self, node: str) -> dict[str, Any]:
        (found,) = [n for n in self.run_results()["results"] if n["node"] == node]
        return dict(found)


@pytest.fixture
def make_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(table: Path, services: str) -> Project:
        root = tmp_path / "project"
        assert main(["init", str(root)]) == 0
        manifest = (
            f"version: 1\ntables:\n  - name: t\n    path: {table}\n    metadata_table: drop\n    {services}\n"
        )
        (root / "tables" / "example.yml").write_text(manifest)
        return Project(root, table)

    return make


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["uuid"])


def hudi_reads(path: Path, as_of: str | None = None) -> list[dict[str, Any]]:
    return by_key(oracle.snapshot_rows(path, as_of=as_of, drop=META))


def mor_table(lake: Path, commits: int, failed_write: bool = False, version: int = 8) -> GeneratedTable:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=commits, rows_per_commit=12, seed=commits)
    return generate(str(lake / "t"), DatagenSpec("t", "mor", version, workload, failed_write=failed_write))


# -- (a) compaction then clean -------------------------------------------------------------------


def planned_deletions(project: Project, node: str) -> set[str]:
    plan = artifacts.saved_plan(project.root / "target" / "plan").plan
    (found,) = [n for n in plan.nodes() if n.id == node]
    return files_to_delete(found)


def last_clean_plan(path: Path) -> Any:
    table = open_table(str(path))
    instant = table.snapshot.timeline.last_completed_clean()
    assert instant is not None
    data = table.storage.read_bytes(table.snapshot.timeline.file_path(instant, State.REQUESTED))
    return decode_cleaner_plan(data, "clean.requested")


def test_one_apply_compacts_then_cleans_the_superseded_slices(
    make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    generated = mor_table(tmp_path / "lake", commits=6)
    path = Path(generated.path.removeprefix("file://"))
    project = make_project(
        path, f"{EVERY_COMMIT}\n    {LATEST_VERSION_ONLY}\n    archive: {{enabled: false}}"
    )
    before = hudi_reads(path)
    assert before == by_key(generated.expected[generated.completed[-1]])
    files_before = data_files(path)

    assert project.cli("plan") == 0
    review = (project.root / "target" / "plan" / "plan.md").read_text()
    assert "as it will be after this plan's compaction" in review
    assert planned_deletions(project, "t.clean") == files_before, "every file of the superseded slices"
    assert project.cli("apply") == 0
    assert [node for node, status in project.ran() if status == "success"] == [
        "t.rollback", "t.compaction", "t.clean"
    ]  # fmt: skip
    assert project.node_result("t.compaction")["adapter_response"]["slices_compacted"] == 2
    clean = project.node_result("t.clean")
    assert clean["adapter_response"]["files_deleted"] == len(files_before) and not clean["drift"]
    assert hudi_reads(path) == before
    assert not files_before & data_files(path), "the superseded slices are gone in the same apply"
    for group in open_table(str(path)).view.file_groups():
        assert len(group.slices) == 1 and not group.slices[0].log_files, group.file_id

    # the clean recorded the compaction's real instant, not the projected one
    (compaction_instant,) = project.node_result("t.compaction")["adapter_response"]["compactions"]
    assert last_clean_plan(path).last_completed_commit_timestamp == compaction_instant
    resolved = clean["adapter_response"]["resolved_instants"]
    assert list(resolved.values()) == [compaction_instant]

    assert project.plan_and_apply() == 0
    assert project.node_result("t.clean")["message"] == "no changes"
    assert hudi_reads(path) == before


def test_one_apply_on_a_v6_table_with_a_failed_write_rolls_back_compacts_and_cleans(
    make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    """Table version 6 compacts only once no earlier write is in flight: the compaction is planned
    on the table as the plan's rollback will leave it (its command-block log files included), so
    the same apply compacts exactly as approved, and the clean removes the superseded slices."""
    generated = mor_table(tmp_path / "lake", commits=6, failed_write=True, version=6)
    path = Path(generated.path.removeprefix("file://"))
    project = make_project(
        path,
        f"{ROLLBACK_NOW}\n    {EVERY_COMMIT}\n    {LATEST_VERSION_ONLY}\n    archive: {{enabled: false}}",
    )
    assert project.cli("plan") == 0
    review = (project.root / "target" / "plan" / "plan.md").read_text()
    assert "after this plan's rollback of failed write(s)" in review
    assert project.cli("apply") == 0
    assert [n for n, s in project.ran() if s == "success"] == ["t.rollback", "t.compaction", "t.clean"]
    assert project.node_result("t.compaction")["adapter_response"]["slices_compacted"] == 2
    assert not any(project.node_result(f"t.{s}")["drift"] for s in ("rollback", "compaction", "clean"))
    assert planned_deletions(project, "t.clean") and not planned_deletions(project, "t.clean") & data_files(
        path
    )
    assert_reads_committed_rows(path, generated)
    for group in open_table(str(path)).view.file_groups():
        assert len(group.slices) == 1 and not group.slices[0].log_files, group.file_id


# -- (b) the whole graph -------------------------------------------------------------------------


def broken_mor_table(
    lake: Path, commits: int, compacted_at: int | None = None
) -> tuple[Path, GeneratedTable, str]:
    """A MOR table with a failed write (the last one) and a pending compaction (and a
    completed one before commit ``compacted_at``)."""
    path = lake / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=commits, rows_per_commit=12, seed=commits)
    spec = DatagenSpec("t", "mor", 8, workload, failed_write=True)
    runner = CompactingWriter(path, compacted_at) if compacted_at is not None else LOCAL_WRITERS
    generated = generate(str(path), spec, runner=runner)
    return path, generated, schedule_compaction(path)


def assert_reads_committed_rows(path: Path, generated: GeneratedTable) -> None:
    assert hudi_reads(path) == by_key(generated.expected[generated.completed[-1]])


def active_completed_commits(path: Path) -> list[str]:
    timeline = open_table(str(path)).snapshot.timeline
    return [i.timestamp for i in timeline.completed_commits()]


def test_one_apply_runs_rollback_compaction_clean_and_archive_in_order(
    make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    path, generated, pending = broken_mor_table(tmp_path / "lake", commits=40, compacted_at=20)
    project = make_project(path, ALL_SERVICES)

    assert project.plan_and_apply() == 0
    assert project.ran() == [
        ("t.rollback", "success"),
        ("t.compaction", "success"),
        ("t.clean", "success"),
        ("t.archive", "success"),
    ]
    assert project.node_result("t.rollback")["adapter_response"]["rolled_back"] == [generated.failed_instant]
    assert pending in project.node_result("t.compaction")["adapter_response"]["compactions"]
    assert project.node_result("t.clean")["adapter_response"]["files_deleted"] > 0, (
        "slices the first compaction superseded"
    )
    assert project.node_result("t.archive")["adapter_response"]["instants_archived"]
    assert_reads_committed_rows(path, generated)
    timeline = open_table(str(path)).snapshot.timeline
    assert not timeline.pending_compactions()
    assert generated.failed_instant not in {i.timestamp for i in timeline.instants}
    assert len(active_completed_commits(path)) <= 6


# -- (c) crashes ---------------------------------------------------------------------------------


def assert_maintained(path: Path, generated: GeneratedTable, savepoint: str | None = None) -> None:
    """The state a successful apply leaves: committed rows only, nothing pending."""
    assert_reads_committed_rows(path, generated)
    timeline = open_table(str(path)).snapshot.timeline
    pending = [f"{i.timestamp}.{i.action.value}" for i in timeline.instants if not i.is_completed]
    assert pending == []
    assert generated.failed_instant not in {i.timestamp for i in timeline.instants}
    if savepoint is not None:
        assert savepoint in {i.timestamp for i in timeline.savepoints()}


def recover(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next apply, of the approved plan: it finishes what the crash interrupted."""
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("apply") == 0, [n["message"] for n in project.run_results()["results"]]


RESUMABLE = [
    "rollback:after_requested",
    "rollback:after_deletes",
    "rollback:after_completed",
    "compaction:after_inflight",
    "compaction:before_commit",
    "savepoint_create:after_inflight",
    "clean:after_inflight",
    "archive:after_archive_written",
    "archive:after_first_completed_deleted",
]
"""The same plan is applied again after the crash: every node done is recorded in its table
(the ledger), so those are skipped and exactly the rest runs, pending instants finished."""


@pytest.mark.parametrize("fault", RESUMABLE)
def test_a_crash_in_any_service_is_recovered_by_the_next_apply(
    make_project: Callable[[Path, str], Project],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
) -> None:
    path, generated, _ = broken_mor_table(tmp_path / "lake", commits=12, compacted_at=6)
    savepoint = generated.completed[-1]
    project = make_project(path, f"{ALL_SERVICES}\n    savepoints: {{instants: ['{savepoint}']}}")
    monkeypatch.setenv(FAULT_ENV, fault)
    assert project.plan_and_apply() == 1
    crashed = f"t.{fault.partition(':')[0]}"
    assert (crashed, "error") in project.ran()
    assert fault in project.node_result(crashed)["message"]

    recover(project, monkeypatch)
    assert_maintained(path, generated, savepoint)
    assert project.plan_and_apply() == 0
    assert_maintained(path, generated, savepoint)


def test_a_crash_in_the_clean_is_recovered_by_the_next_apply(
    make_project: Callable[[Path, str], Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generated = mor_table(tmp_path / "lake", commits=6)
    path = Path(generated.path.removeprefix("file://"))
    project = make_project(
        path, f"{EVERY_COMMIT}\n    {LATEST_VERSION_ONLY}\n    archive: {{enabled: false}}"
    )
    files_before = data_files(path)
    monkeypatch.setenv(FAULT_ENV, "clean:after_deletes")  # the clean after the plan's compaction
    assert project.plan_and_apply() == 1
    assert ("t.compaction", "success") in project.ran() and ("t.clean", "error") in project.ran()

    recover(project, monkeypatch)  # the same plan: its compaction is skipped, its clean finished
    assert ("t.compaction", "skipped") in project.ran()
    assert "already applied from this plan" in project.node_result("t.compaction")["message"]
    assert not files_before & data_files(path)
    assert_reads_committed_rows(path, generated)


# -- (d) savepoints ------------------------------------------------------------------------------


def files_read_as_of(path: Path, instant: str) -> set[str]:
    return {row["_hoodie_file_name"] for row in oracle.snapshot_rows(path, as_of=instant)}


def test_a_savepoint_made_by_apply_keeps_its_files_through_later_cleans(
    make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=8, rows_per_commit=12, seed=8)
    generated = generate(str(tmp_path / "lake" / "t"), DatagenSpec("t", "cow", 8, workload))
    path = tmp_path / "lake" / "t"
    savepoint = generated.completed[2]
    rows_at_savepoint = hudi_reads(path, as_of=savepoint)
    assert rows_at_savepoint == by_key(generated.expected[savepoint])
    savepointed = files_read_as_of(path, savepoint)
    services = f"savepoints: {{instants: ['{savepoint}']}}\n    clean: {{commits_retained: 1}}"
    project = make_project(path, services + "\n    archive: {enabled: false}")

    assert project.cli("plan") == 0
    planned = {path.rsplit("/", 1)[-1] for path in planned_deletions(project, "t.clean")}
    assert planned and not planned & savepointed, "the clean is planned with the plan's savepoint"
    assert project.cli("apply") == 0
    assert [n for n, s in project.ran() if s == "success"][1:3] == ["t.savepoint_create", "t.clean"]
    assert project.node_result("t.savepoint_create")["adapter_response"]["savepoints_created"] == [savepoint]
    clean = project.node_result("t.clean")
    assert clean["adapter_response"]["files_deleted"] == len(planned) and not clean["drift"]
    assert project.plan_and_apply() == 0  # a later clean keeps them too
    existing = {name.rsplit("/", 1)[-1] for name in data_files(path)}
    assert savepointed <= existing
    assert hudi_reads(path, as_of=savepoint) == rows_at_savepoint
    assert hudi_reads(path) == by_key(generated.expected[generated.completed[-1]])


# -- the metadata table --------------------------------------------------------------------------


@pytest.mark.fixtures
def test_the_first_node_to_run_drops_the_metadata_table(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(MDT_FIXTURE).path
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    project = make_project(path, f"{ROLLBACK_NOW}\n    {EVERY_COMMIT}\n    clean: {{commits_retained: 1}}")
    assert project.cli("plan") == 0
    plan = artifacts.plan_json(project.root / "target" / "plan")
    nodes = {f"{n['table']}.{n['service']}": n for table in plan["tables"] for n in table["nodes"]}
    assert nodes["t.rollback"]["actions"][0]["kind"] == "drop_metadata_table"
    assert all(a["kind"] != "drop_metadata_table" for n in list(nodes.values())[1:] for a in n["actions"])

    assert project.cli("apply") == 0, [n["message"] for n in project.run_results()["results"]]
    rollback = project.node_result("t.rollback")
    assert rollback["adapter_response"]["metadata_table_dropped"]
    assert rollback["message"].startswith("metadata table dropped ("), rollback["message"]  # an effect, said
    assert project.node_result("t.compaction")["adapter_response"]["slices_compacted"] > 0
    assert not (path / ".hoodie" / "metadata").exists()
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before


# -- (e) a pending compaction belongs to its executor ----------------------------------------------


def crashed_compaction(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """An async compactor's attempt that died after writing its first base file: the compaction
    stays inflight with a partial file. Its instant and the partial file(s)."""
    table, operations = writer_compaction(path)
    assert len(operations) > 1
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    plan = build_compaction_plan(operations, "async-compactor")
    monkeypatch.setenv(FAULT_ENV, "compaction:after_operation")
    with pytest.raises(InjectedFault):
        run_compaction(table.storage, table.snapshot.config, instant, plan)
    monkeypatch.delenv(FAULT_ENV)
    partial = sorted(str(p.relative_to(path)) for p in path.rglob(f"*_{instant}.parquet"))
    assert len(partial) == 1
    return instant, partial


def plan_node(project: Project, service: str) -> dict[str, Any]:
    plan = artifacts.plan_json(project.root / "target" / "plan")
    (node,) = [n for t in plan["tables"] for n in t["nodes"] if n["service"] == service]
    return dict(node)


def test_an_inflight_compaction_is_left_by_the_rollback_node_and_redone_by_the_compaction_node(
    make_project: Callable[[Path, str], Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BaseHoodieTableServiceClient.getInstantsToRollback (failed writes) reads
    getInflightTimelineExcludeCompactionAndClustering: an inflight compaction, however old, is
    not a failed write. Only its executor rolls its attempt back before re-running it
    (BaseHoodieTableServiceClient.compact -> HoodieTable.rollbackInflightCompaction): the plan's
    rollback node leaves it and says why, the compaction node re-executes it, hudi reads the
    same rows before and after."""
    generated = mor_table(tmp_path / "lake", commits=4)
    path = Path(generated.path.removeprefix("file://"))
    before = hudi_reads(path)
    instant, partial = crashed_compaction(path, monkeypatch)
    project = make_project(path, f"{ROLLBACK_NOW}\n    {EVERY_COMMIT}\n    archive: {{enabled: false}}")

    assert project.cli("plan") == 0
    rollback = plan_node(project, "rollback")
    assert rollback["status"] == "no_op" and not rollback["actions"]
    (left,) = rollback["effect"]["left_alone"]
    assert left["instant"] == instant
    assert left["reason"].startswith("inflight compaction is a table service, not a failed write")
    assert any(instant in r and "only the job that executes it" in r for r in rollback["reasons"])
    compaction = plan_node(project, "compaction")
    assert [(a["kind"], a["target"]) for a in compaction["actions"]] == [
        ("execute_pending_compaction", instant)
    ]
    review = (project.root / "target" / "plan" / "plan.md").read_text()
    assert "inflight compaction is a table service" in review

    assert project.cli("apply") == 0, [n["message"] for n in project.run_results()["results"]]
    result = project.node_result("t.compaction")["adapter_response"]
    assert result["compactions"] == [instant] and result["rolled_back_files"] == partial
    (rollback_instant,) = result["rollbacks"]
    assert not project.node_result("t.rollback")["adapter_response"].get("rolled_back")
    timeline = open_table(str(path)).snapshot.timeline
    assert not timeline.pending_compactions()
    assert {i.timestamp for i in timeline.of_action(Action.ROLLBACK)} == {rollback_instant}
    assert hudi_reads(path) == before == by_key(generated.expected[generated.completed[-1]])
