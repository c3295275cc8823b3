"""The table as a clustering node leaves it (what the clean after it plans on), on a generated
table: the clustered file groups replaced at the projected instant, one new file group per planned
output, the clustering completed on the timeline, and the description says so; a clean planned
on it deletes no file of a group the clustering replaces before that clustering is older than
its earliest commit to retain."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from maintainer.artifact.model import ClusterGroup, NodePlan, NodeStatus
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clustering.node import plan_clustering_node
from maintainer.services.clustering.projection import project_after_clustering
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.services.registry import service_for


def _spec(path: Path) -> TableSpec:
    return TableSpec.of(
        name="t", path=str(path), manifest="t.yml", line=1,
        clustering=ClusteringSpec(max_commits=0), clean=CleanSpec(commits_retained=1),
    )  # fmt: skip


def test_the_projection_replaces_the_clustered_groups(tmp_path: Path) -> None:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=3, commits=3, rows_per_commit=60, seed=3)
    generate(str(path), DatagenSpec("t", "cow", 8, workload))
    table = open_table(str(path))
    spec = _spec(path)
    node = plan_clustering_node(table, spec, datetime.now(UTC))
    assert node.status is NodeStatus.CHANGES
    groups = node.actions_of(ClusterGroup)
    projected = project_after_clustering(table, node)

    assert projected.projection is not None
    (instant,) = projected.projection.instants
    assert "clustering: 6 file group(s) replaced by 2 new one(s)" in projected.projection.description
    last = projected.snapshot.timeline.completed()[-1]
    assert (last.timestamp, last.action) == (instant, Action.CLUSTERING)
    clustered = {key for g in groups for key in g.file_groups}
    assert {k: projected.view.inputs.replaced_file_groups[k] for k in clustered} == dict.fromkeys(
        clustered, instant
    )
    latest = {(s.partition, s.file_id): s for s in projected.view.latest_slices()}
    assert clustered.isdisjoint(latest)
    assert len(latest) == sum(g.num_output_file_groups for g in groups)
    assert all(s.base_instant == instant for s in latest.values())

    clean = service_for("clean")
    assert clean is not None
    cleaned = clean.plan(projected, spec, datetime.now(UTC))
    deleted = {a.target.split("/")[1].split("_")[0] for a in cleaned.actions if a.kind == "delete_file"}
    assert deleted.isdisjoint({file_id for _, file_id in clustered})


def test_a_node_without_new_groups_projects_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t"
    generate(str(path), DatagenSpec("t", "cow", 8, WorkloadSpec(partitions=1, file_groups=1, commits=1)))
    table = open_table(str(path))
    nothing = NodePlan(table="t", service="clustering", status=NodeStatus.NO_OP)
    assert project_after_clustering(table, nothing) is table
