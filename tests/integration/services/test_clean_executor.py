"""The clean executor on real tables (datagen with many commits, copies of Hudi's fixtures):
exactly the approved files go, readers see the same data, the instants are Hudi's."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import pytest

from maintainer.artifact.directory import SavedPlan, read_plan, write_plan
from maintainer.artifact.model import DeleteFile, FinishPendingClean
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import ApplyError
from maintainer.graph import NodeId
from maintainer.hudi.config.properties import parse_java_properties
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import ActionInstant, CleanerPlan, CleanFileInfo, SavepointMetadata, encode_avro
from maintainer.hudi.payloads.savepoint import SavepointPartitionMetadata
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.common.ledger import PLAN_ID_KEY
from tests.support.clean_checks import data_files, decoded_cleans, deleted_by, reads
from tests.support.fixtures import FixtureTable
from tests.support.plans import clean_effect_of, files_to_delete

pytestmark = pytest.mark.spark


def table_spec(
    name: str, path: Path | str, retained: int = 3, mdt: Literal["refuse", "drop"] = "refuse"
) -> TableSpec:
    return TableSpec.of(name=name, path=str(path), manifest="tables/t.yml", line=1,
                     metadata_table=mdt, clean=CleanSpec(commits_retained=retained))  # fmt: skip


def make_plan(directory: Path, *specs: TableSpec) -> SavedPlan:
    requests = [TableRequest(spec, ("clean",)) for spec in specs]
    built = build_plan("proj", "dev", requests, {}, datetime.now(timezone.utc))
    assert not built.errors, built.errors
    write_plan(directory, built.plan, built.payloads, "review", {})
    return read_plan(directory)


def run(saved: SavedPlan, spark: Any, *specs: TableSpec) -> RunResults:
    graph = nx.DiGraph()
    graph.add_nodes_from(NodeId(spec.name, "clean") for spec in specs)
    runner = PlanRunner(saved, {spec.name: spec for spec in specs}, lambda: spark)
    return apply_plan(saved, graph, runner, threads=2)


def only_node(results: RunResults) -> NodeResult:
    (node,) = results.nodes
    return node


def planned(saved: SavedPlan, table: str) -> set[str]:
    (node,) = [n for n in saved.plan.nodes() if n.table == table]
    return files_to_delete(node)


def datagen(path: Path, version: int, commits: int = 10, table_type: str = "cow") -> Path:
    workload = WorkloadSpec(partitions=3, file_groups=2, commits=commits, rows_per_commit=40, seed=version)
    generate(str(path), DatagenSpec(path.name, table_type, version, workload))
    return path


def check_applied(saved: SavedPlan, table: Path, name: str, before_files: set[str],
                  before_reads: dict[str, Any], ectr: str | None) -> None:  # fmt: skip
    """Exactly the planned files went, hudi reads the same, one clean decodes with Hudi's schemas."""
    approved = planned(saved, name)
    assert approved and approved <= before_files
    assert before_files - data_files(table) == approved
    assert reads(table, ectr) == before_reads
    (clean,) = decoded_cleans(table)
    assert clean.metadata is not None
    assert deleted_by(clean) == approved
    assert clean.metadata["totalFilesDeleted"] == len(approved)
    assert clean.metadata["extraMetadata"][PLAN_ID_KEY] == saved.plan_id
    assert clean.metadata["earliestCommitToRetain"] == (ectr or "")
    assert clean.metadata["startCleanTime"] == clean.instant_time
    assert clean.plan_bytes == saved.payloads[f"{name}.clean.requested"], "no drift: the approved bytes"
    version = open_table(str(table)).snapshot.config.version
    assert clean.inflight == (clean.plan_bytes if version < 8 else b"")


def ectr_of(saved: SavedPlan, table: str) -> str | None:
    (node,) = [n for n in saved.plan.nodes() if n.table == table]
    value = clean_effect_of(node).earliest_commit_to_retain
    return str(value) if value else None


@pytest.mark.parametrize("version", [6, 8])
def test_datagen_cow_table_with_many_commits(tmp_path: Path, spark: Any, version: int) -> None:
    table = datagen(tmp_path / f"cow{version}", version, commits=12)
    spec = table_spec("t", table)
    saved = make_plan(tmp_path / "plan", spec)
    ectr = ectr_of(saved, "t")
    before_files, before_reads = data_files(table), reads(table, ectr)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    assert node.effects["files_deleted"] == len(planned(saved, "t")) and not node.drift
    deletions = [a for n in saved.plan.nodes() for a in n.actions_of(DeleteFile)]
    assert node.effects["bytes_deleted"] == sum(a.size for a in deletions) > 0
    check_applied(saved, table, "t", before_files, before_reads, ectr)


def test_two_tables_in_one_run(tmp_path: Path, spark: Any) -> None:
    specs = [table_spec(f"t{v}", datagen(tmp_path / f"t{v}", v, commits=6), retained=2) for v in (6, 8)]
    saved = make_plan(tmp_path / "plan", *specs)
    results = run(saved, spark, *specs)
    assert [n.status for n in results.nodes] == [NodeRunStatus.SUCCESS] * 2
    for spec in specs:
        assert deleted_by(decoded_cleans(spec.path)[0]) == planned(saved, spec.name)


FIXTURES_WITH_MDT = [
    "sample_table_mor_avro_v9_txns_simple_meta",
    "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
]
FIXTURES_WITHOUT_MDT = [
    "sample_table_cow_v9_txns_complex_nometa",
    "sample_table_mor_avro_v9_txns_nonpart_nometa",
]


@pytest.mark.fixtures
@pytest.mark.parametrize("name", FIXTURES_WITH_MDT + FIXTURES_WITHOUT_MDT)
def test_fixture_copies(
    name: str, fixture_copy: Callable[[str], FixtureTable], tmp_path: Path, spark: Any
) -> None:
    table = fixture_copy(name).path
    spec = table_spec("fx", table, retained=1, mdt="drop")
    had_mdt = open_table(str(table)).snapshot.metadata_table.enabled
    saved = make_plan(tmp_path / "plan", spec)
    (node_plan,) = saved.plan.nodes()
    assert (node_plan.actions[0].kind == "drop_metadata_table") == had_mdt
    ectr = ectr_of(saved, "fx")
    before_files, before_reads = data_files(table), reads(table, ectr)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    check_applied(saved, table, "fx", before_files, before_reads, ectr)
    properties = parse_java_properties((table / ".hoodie" / "hoodie.properties").read_text("latin-1"))
    assert properties.get("hoodie.table.metadata.partitions", "") == ""
    assert not (table / ".hoodie" / "metadata").exists()
    assert not (table / ".hoodie" / "hoodie.properties.backup").exists()
    if had_mdt:
        assert node.effects["metadata_table_dropped"]
        assert properties["hoodie.table.metadata.partitions.inflight"] == ""


def _savepoint_oldest_planned_slice(table: Path, saved: SavedPlan) -> set[str]:
    """Savepoint the commit whose slices the plan deletes first; returns the files it pins."""
    loaded = open_table(str(table))
    approved = planned(saved, "t")
    commit = min(path.rsplit("_", 1)[-1].split(".")[0] for path in approved)
    as_of = loaded.view_as_of(commit)
    partitions = {}
    pinned: set[str] = set()
    for partition in as_of.partitions:
        names = [f.name for g in as_of.file_groups(partition) if (s := g.latest_slice) for f in s.files]
        partitions[partition] = SavepointPartitionMetadata(
            partition_path=partition, savepoint_data_file=tuple(names)
        )
        pinned.update(f"{partition}/{n}" for n in names)
    metadata = SavepointMetadata(
        savepointed_by="test", savepointed_at=0, comments="", partition_metadata=partitions
    )
    writer = TimelineWriter(loaded.storage, loaded.snapshot.config)
    writer.complete(writer.create_inflight(Action.SAVEPOINT, b"", instant_time=commit), encode_avro(metadata))
    return pinned & approved


def test_a_savepoint_made_after_the_plan_keeps_its_files(tmp_path: Path, spark: Any) -> None:
    table = datagen(tmp_path / "t", 6, commits=10)
    spec = table_spec("t", table)
    saved = make_plan(tmp_path / "plan", spec)
    before_files = data_files(table)
    pinned = _savepoint_oldest_planned_slice(table, saved)
    assert pinned
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    assert {d.path for d in node.drift} == pinned
    assert all("savepointed" in d.reason for d in node.drift)
    after = data_files(table)
    assert pinned <= after
    assert before_files - after == planned(saved, "t") - pinned
    (clean,) = decoded_cleans(table)
    assert clean.plan_bytes != saved.payloads["t.clean.requested"]
    assert deleted_by(clean) == planned(saved, "t") - pinned


def _pending_clean(
    table: Path, paths: list[str], plan_id: str | None = None, ectr: str | None = None, last: str = ""
) -> str:
    """A clean Hudi requested (and did not run), deleting ``paths``; ``last``: the plan's
    lastCompletedCommitTimestamp."""
    loaded = open_table(str(table))
    action = loaded.snapshot.timeline.completed_commits()[0].action.value
    per_partition: dict[str, list[CleanFileInfo]] = {}
    for path in paths:
        partition = path.rsplit("/", 1)[0] if "/" in path else ""
        per_partition.setdefault(partition, []).append(CleanFileInfo(file_path=loaded.storage.uri(path)))
    plan = CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        earliest_instant_to_retain=ActionInstant(timestamp=ectr, action=action, state="COMPLETED")
        if ectr
        else None,
        file_paths_to_be_deleted_per_partition={k: tuple(v) for k, v in per_partition.items()},
        extra_metadata={PLAN_ID_KEY: plan_id} if plan_id else None,
        last_completed_commit_timestamp=last,
    )
    writer = TimelineWriter(loaded.storage, loaded.snapshot.config)
    return writer.create_requested(Action.CLEAN, encode_avro(plan)).timestamp


def test_a_pending_clean_of_hudi_named_in_the_plan_is_finished_first(tmp_path: Path, spark: Any) -> None:
    table = datagen(tmp_path / "t", 8, commits=8)
    spec = table_spec("t", table)
    first = make_plan(tmp_path / "probe", spec)
    hudis = sorted(planned(first, "t"))[:2]
    pending_time = _pending_clean(
        table, hudis, ectr=ectr_of(first, "t")
    )  # apply's re-check is then incremental
    saved = make_plan(tmp_path / "plan", spec)
    (node_plan,) = saved.plan.nodes()
    assert node_plan.actions[0].kind == "finish_pending_clean" and node_plan.actions[0].target == pending_time
    before = data_files(table)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    assert before - data_files(table) == set(hudis) | planned(saved, "t")
    finished, ours = decoded_cleans(table)
    assert finished.instant_time == pending_time and deleted_by(finished) == set(hudis)
    assert finished.metadata is not None and finished.metadata["extraMetadata"] is None
    assert deleted_by(ours) == planned(saved, "t")


def test_a_new_clean_planned_beside_a_pending_one_is_not_turned_into_drift_by_the_trigger(
    tmp_path: Path, spark: Any
) -> None:
    """CleanPlanActionExecutor.needsCleaning decides when a clean is scheduled, and Hudi schedules
    while another clean is still pending (counting from the last *completed* clean). The plan
    does the same; apply finishes the pending clean first, whose lastCompletedCommitTimestamp is
    the latest commit, and must not then ask the trigger again: the reviewed deletions go."""
    table = datagen(tmp_path / "t", 8, commits=8)
    spec = table_spec("t", table)
    first = make_plan(tmp_path / "probe", spec)
    latest = open_table(str(table)).snapshot.timeline.completed_commits()[-1].timestamp
    hudis = sorted(planned(first, "t"))[:2]
    _pending_clean(table, hudis, ectr=ectr_of(first, "t"), last=latest)
    saved = make_plan(tmp_path / "plan", spec)
    assert planned(saved, "t")
    before = data_files(table)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    assert not node.drift
    assert before - data_files(table) == set(hudis) | planned(saved, "t")


def test_a_pending_clean_that_appeared_after_the_plan_fails_the_node(tmp_path: Path, spark: Any) -> None:
    table = datagen(tmp_path / "t", 6, commits=8)
    spec = table_spec("t", table)
    saved = make_plan(tmp_path / "plan", spec)
    _pending_clean(table, sorted(planned(saved, "t"))[:1])
    before = data_files(table)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.ERROR
    assert "is pending in the table and the plan does not finish it" in node.message
    assert data_files(table) == before
    assert open_table(str(table)).snapshot.timeline.pending_cleans()[0].state is State.REQUESTED


def test_two_concurrent_applies_of_one_plan_delete_once_and_the_other_stops_clearly(
    tmp_path: Path, spark: Any
) -> None:
    table = datagen(tmp_path / "t", 6, commits=10)
    spec = table_spec("t", table)
    saved = make_plan(tmp_path / "plan", spec)
    before = data_files(table)

    def apply_once(_: int) -> NodeResult:
        """One apply; the other may already be refused by the preflight's lock check."""
        try:
            return only_node(run(saved, spark, spec))
        except ApplyError as exc:
            return NodeResult("t.clean", NodeRunStatus.ERROR, message=str(exc))

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(apply_once, range(2)))
    statuses = sorted(o.status.value for o in outcomes)
    assert statuses in (["error", "success"], ["skipped", "success"]), [o.message for o in outcomes]
    (other,) = [o for o in outcomes if o.status is not NodeRunStatus.SUCCESS]
    assert "locked by another apply" in other.message or "already applied from this plan" in other.message
    assert before - data_files(table) == planned(saved, "t")
    assert len(decoded_cleans(table)) == 1


def test_a_pending_clean_finishes_without_the_files_a_savepoint_made_after_the_plan_pins(
    tmp_path: Path, spark: Any
) -> None:
    """Its ``.clean.requested`` is as reviewed, but a savepoint now pins some of its files:
    only the others are deleted, the pinned ones are drift and the clean records just the rest."""
    table = datagen(tmp_path / "t", 6, commits=10)
    spec = table_spec("t", table)
    first = make_plan(tmp_path / "probe", spec)
    listed = sorted(planned(first, "t"))
    pending_time = _pending_clean(table, listed, ectr=ectr_of(first, "t"))
    saved = make_plan(tmp_path / "plan", spec)
    (finish,) = saved.plan.nodes()[0].actions_of(FinishPendingClean)
    assert finish.target == pending_time and finish.paths == tuple(listed)
    pinned = _savepoint_oldest_planned_slice(table, first)
    assert pinned
    before = data_files(table)
    node = only_node(run(saved, spark, spec))
    assert node.status is NodeRunStatus.SUCCESS, node.message
    assert {d.path for d in node.drift} == pinned
    assert all(d.reason == "kept: it is savepointed" for d in node.drift)
    assert before - data_files(table) == set(listed) - pinned
    finished = decoded_cleans(table)[0]
    assert finished.instant_time == pending_time and deleted_by(finished) == set(listed) - pinned
