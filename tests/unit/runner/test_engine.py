"""Which nodes apply runs on Spark: with ``auto`` only data rewrites (compactions, clusterings),
deletes of any size in process; ``local`` never, ``spark`` always."""

from __future__ import annotations

import pytest

from maintainer.artifact.model import (
    ClusterGroup,
    ClusterSlice,
    CreateSavepoint,
    ExecutePendingClustering,
    NodePlan,
    NodeStatus,
    RollbackAction,
    SliceFile,
)
from maintainer.runner.engine import files_deleted, runs_on_spark
from tests.support.plans import compact_slice, delete_file, node


def clean_node(files: int) -> NodePlan:
    return node("t", "clean", tuple(delete_file(f"p/f{i}.parquet", 1) for i in range(files)))


def rollback_node(files: int) -> NodePlan:
    deletes = tuple(f"p/f{i}.parquet" for i in range(files))
    rollback = RollbackAction(
        kind="rollback", target="1", reason="failed", action="commit", state="INFLIGHT",
        source="markers", delete_files=deletes, rollback_blocks_for=(), rollback_instant=None,
    )  # fmt: skip
    return node("t", "rollback", (rollback,))


def compaction_node() -> NodePlan:
    return node("t", "compaction", (compact_slice("p", "f", "1", None, (), {}),))


def clustering_node(pending: bool = False) -> NodePlan:
    if pending:
        return node("t", "clustering", (ExecutePendingClustering(target="1", reason="pending", sha256="0"),))
    piece = ClusterSlice(file_id="f", base_instant="1", base_file=SliceFile(name="f_1-0-1_1.parquet", size=9),
                         log_files=())  # fmt: skip
    group = ClusterGroup(partition="p", slices=(piece,), num_output_file_groups=1, metrics={})
    return node("t", "clustering", (group,))


def savepoint_node() -> NodePlan:
    return node("t", "savepoint_create", (CreateSavepoint(target="1", reason="kept"),))


def test_auto_runs_small_work_in_process_and_data_rewrites_on_spark() -> None:
    assert not runs_on_spark(clean_node(files=3), "auto")
    assert not runs_on_spark(rollback_node(files=5), "auto")
    assert not runs_on_spark(savepoint_node(), "auto")
    assert not runs_on_spark(NodePlan(table="t", service="archive", status=NodeStatus.CHANGES), "auto")
    assert runs_on_spark(compaction_node(), "auto")
    assert runs_on_spark(clustering_node(), "auto")
    assert runs_on_spark(clustering_node(pending=True), "auto")


def test_auto_deletes_in_process_whatever_the_count() -> None:
    large = clean_node(files=50_000)
    assert files_deleted(large) == 50_000
    assert not runs_on_spark(large, "auto")
    assert not runs_on_spark(rollback_node(files=20_000), "auto")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_local_and_spark_decide_for_every_node(engine: str) -> None:
    for planned in (clean_node(files=3), compaction_node(), savepoint_node()):
        assert runs_on_spark(planned, engine) is (engine == "spark")
