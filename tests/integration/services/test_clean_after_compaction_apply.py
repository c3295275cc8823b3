"""One apply runs the plan's compaction, then its clean planned on the projected table: the
clean deletes exactly what was approved, records the compaction's real instant where the plan
had the projected one (here as the earliest commit to retain, with one commit retained), and
hudi reads the same snapshot and the same time travel to every retained instant."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.graph import NodeId
from maintainer.plan.artifact import SavedPlan, read_plan, write_plan
from maintainer.plan.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.project.services import CleanSpec, CompactionSpec, CompactionTrigger
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.results import NodeResult, NodeRunStatus
from tests.support import oracle
from tests.support.clean_checks import data_files, decoded_cleans, deleted_by
from tests.support.compaction import compacting_writer

pytestmark = pytest.mark.spark


def rows(path: Path, as_of: str | None = None) -> list[dict[str, Any]]:
    """hudi's rows, without the file name the compaction changed."""
    found = oracle.snapshot_rows(path, as_of=as_of, drop=["_hoodie_file_name"])
    return sorted(found, key=lambda r: str(r["_hoodie_record_key"]))


def table_spec(path: Path, clean: CleanSpec) -> TableSpec:
    compaction = CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1))
    return TableSpec(name="t", path=str(path), manifest="tables/t.yml", line=1,
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
    generate(str(path), DatagenSpec("t", "mor", 8, workload), runner=compacting_writer(path, 4))
    spec = table_spec(path, CleanSpec(commits_retained=1))
    saved = plan(tmp_path / "plan", spec)
    (clean,) = [n for n in saved.plan.nodes() if n.service == "clean"]
    (projected,) = clean.effect["projected_instants"]
    assert clean.effect["earliest_commit_to_retain"] == projected
    approved = {f["path"] for f in clean.effect["delete_files"]}
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
