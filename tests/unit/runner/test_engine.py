"""Which nodes apply runs on Spark: with ``auto`` only data rewrites (compactions), deletes of any
size in process; ``local`` never, ``spark`` always."""

from __future__ import annotations

import pytest

from maintainer.artifact.model import CreateSavepoint, NodePlan, NodeStatus, RollbackAction
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


def savepoint_node() -> NodePlan:
    return node("t", "savepoint_create", (CreateSavepoint(target="1", reason="kept"),))


def test_auto_runs_small_work_in_process_and_data_rewrites_on_spark() -> None:
    assert not runs_on_spark(clean_node(files=3), "auto")
    assert not runs_on_spark(rollback_node(files=5), "auto")
    assert not runs_on_spark(savepoint_node(), "auto")
    assert not runs_on_spark(NodePlan(table="t", service="archive", status=NodeStatus.CHANGES), "auto")
    assert runs_on_spark(compaction_node(), "auto")


def test_auto_deletes_in_process_whatever_the_count() -> None:
    large = clean_node(files=50_000)
    assert files_deleted(large) == 50_000
    assert not runs_on_spark(large, "auto")
    assert not runs_on_spark(rollback_node(files=20_000), "auto")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_local_and_spark_decide_for_every_node(engine: str) -> None:
    for planned in (clean_node(files=3), compaction_node(), savepoint_node()):
        assert runs_on_spark(planned, engine) is (engine == "spark")
