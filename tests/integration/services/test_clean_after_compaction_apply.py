"""One apply runs the plan's compaction, then its clean planned on the projected table: the
clean deletes exactly what was approved, records the compaction's real instant where the plan
had the projected one (here as the earliest commit to retain, with one commit retained), and
hudi reads the same snapshot and the same time travel to every retained instant."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from maintainer.artifact.directory import SavedPlan, plan_id_of, read_plan, write_plan
from maintainer.artifact.model import CompactSlice
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.graph import NodeId
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.results import NodeResult, NodeRunStatus
from maintainer.services.clean.node import clean_payloads
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.node import compaction_payloads
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.storage import Storage
from tests.support import oracle
from tests.support.clean_checks import data_files, decoded_cleans, deleted_by
from tests.support.compaction import CompactingWriter
from tests.support.plans import clean_effect_of, files_to_delete

pytestmark = pytest.mark.spark


def rows(path: Path, as_of: str | None = None) -> list[dict[str, Any]]:
    """hudi's rows, without the file name the compaction changed."""
    found = oracle.snapshot_rows(path, as_of=as_of, drop=["_hoodie_file_name"])
    return sorted(found, key=lambda r: str(r["_hoodie_record_key"]))


def table_spec(path: Path, clean: CleanSpec) -> TableSpec:
    compaction = CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1))
    return TableSpec.of(name="t", path=str(path), manifest="tables/t.yml", line=1,
                     compaction=compaction, clean=clean)  # fmt: skip


def plan(directory: Path, spec: TableSpec) -> SavedPlan:
    built = build_plan(
        "p", "dev", [TableRequest(spec, ("compaction", "clean"))], {}, datetime.now(timezone.utc)
    )
    assert not built.errors
    write_plan(directory, built.plan, built.payloads, "review", {})
    return read_plan(directory)


def apply(saved: SavedPlan, spec: TableSpec, spark: Any) -> dict[str, NodeResult]:
    graph = nx.DiGraph()
    graph.add_edge(NodeId("t", "compaction"), NodeId("t", "clean"), kind="service_order")
    results = apply_plan(saved, graph, PlanRunner(saved, {"t": spec}, lambda: spark), threads=1)
    assert [n.status for n in results.nodes] == [NodeRunStatus.SUCCESS] * 2, [
        n.message for n in results.nodes
    ]
    return {n.id.split(".")[-1]: n for n in results.nodes}


def test_the_clean_records_the_real_compaction_instant_it_was_planned_with(
    tmp_path: Path, spark: Any
) -> None:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=8, rows_per_commit=40, seed=3)
    generate(str(path), DatagenSpec("t", "mor", 8, workload), runner=CompactingWriter(path, 4))
    spec = table_spec(path, CleanSpec(commits_retained=1))
    saved = plan(tmp_path / "plan", spec)
    (clean,) = [n for n in saved.plan.nodes() if n.service == "clean"]
    (projected,) = clean_effect_of(clean).projected_instants
    assert clean_effect_of(clean).earliest_commit_to_retain == projected
    approved = files_to_delete(clean)
    assert approved, "the slices before the earlier compaction go once the new one is retained"
    files, before = data_files(path), rows(path)

    nodes = apply(saved, spec, spark)
    (real,) = nodes["compaction"].effects["compactions"]
    assert nodes["clean"].effects["resolved_instants"] == {projected: real}
    assert not nodes["clean"].drift
    assert files - data_files(path) == approved
    (done,) = decoded_cleans(path)
    assert done.metadata is not None and deleted_by(done) == approved
    assert done.metadata["earliestCommitToRetain"] == real
    assert done.metadata["lastCompletedCommitTimestamp"] == real
    assert rows(path) == before and rows(path, as_of=real) == before, "time travel to the retained compaction"


def with_a_slice_grown_since(built: BuiltPlan, directory: Path, storage: Storage) -> SavedPlan:
    """The plan as if the first approved slice got a new log file after planning: its approved
    compaction no longer matches the table (the plan is re-signed, as if made that way)."""
    table = built.plan.tables[0]
    compaction, clean = table.nodes
    first = compaction.actions_of(CompactSlice)[0]
    shrunk = replace(first, log_files=first.log_files[:-1])
    compaction = replace(compaction, actions=tuple(shrunk if a is first else a for a in compaction.actions))
    plan_body = replace(built.plan, tables=(replace(table, nodes=(compaction, clean)),))
    plan_id = plan_id_of(plan_body)
    payloads = {
        **compaction_payloads(compaction, storage, plan_id),
        **clean_payloads(clean, storage, plan_id),
    }
    write_plan(directory, plan_body, payloads, "review", {})
    return read_plan(directory)


def test_a_slice_the_compaction_drops_as_drift_keeps_its_files_from_the_clean(
    tmp_path: Path, spark: Any
) -> None:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=30, seed=5)
    generate(str(path), DatagenSpec("t", "mor", 8, workload))
    spec = table_spec(path, CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1))
    built = build_plan(
        "p", "dev", [TableRequest(spec, ("compaction", "clean"))], {}, datetime.now(timezone.utc)
    )
    saved = with_a_slice_grown_since(built, tmp_path / "plan", Storage(str(path)))
    drifting = saved.plan.tables[0].nodes[0].actions_of(CompactSlice)[0]
    group_files = {f for f in data_files(path) if drifting.file_id in f}
    approved = files_to_delete(saved.plan.tables[0].nodes[1])
    assert group_files <= approved, "the clean approved the drifting group's old slice"
    before, files = rows(path), data_files(path)

    nodes = apply(saved, spec, spark)
    assert len(nodes["compaction"].drift) == 1 and nodes["compaction"].effects["slices_compacted"] == 1
    kept = {d.path for d in nodes["clean"].drift}
    assert kept == group_files, "not compacted: its only slice is not deletable"
    assert group_files <= data_files(path)
    assert files - data_files(path) == approved - group_files
    assert rows(path) == before


def test_the_instants_apply_writes_are_timed_by_its_clock(tmp_path: Path, spark: Any) -> None:
    """Compaction (with its rollback of nothing), clean: every instant apply writes takes its
    time from the runner's clock, none from the wall clock."""
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=4, rows_per_commit=10, seed=5)
    generate(str(path), DatagenSpec("t", "mor", 8, workload), runner=CompactingWriter(path, 2))
    spec = table_spec(path, CleanSpec(commits_retained=1))
    saved = plan(tmp_path / "plan", spec)
    before = {f.name for f in (path / ".hoodie" / "timeline").iterdir()}
    ticks: list[datetime] = []

    def clock() -> datetime:  # a second further at each call, from 2031
        ticks.append(datetime(2031, 1, 2, 3, 4, 5, tzinfo=timezone.utc) + timedelta(seconds=len(ticks)))
        return ticks[-1]

    graph = nx.DiGraph()
    graph.add_edge(NodeId("t", "compaction"), NodeId("t", "clean"), kind="service_order")
    runner = PlanRunner(saved, {"t": spec}, lambda: spark, clock=clock)
    results = apply_plan(saved, graph, runner, threads=1)
    statuses = [n.status for n in results.nodes]
    assert statuses == [NodeRunStatus.SUCCESS] * 2, [n.message for n in results.nodes]
    written = {f.name for f in (path / ".hoodie" / "timeline").iterdir() if f.is_file()} - before
    assert {"compaction", "clean"} <= {part for name in written for part in name.split(".")}, written
    issued = {f"{tick:%Y%m%d%H%M%S}000" for tick in ticks}
    instants = {name.split(".")[0].split("_")[0] for name in written}
    assert instants <= issued, (sorted(instants), sorted(issued))  # never the wall clock's
