"""The plan model's tagged records and the catalog agree: every action kind a record can carry
is labelled by the catalog (for summaries), and the catalog labels no kind the model lacks."""

from __future__ import annotations

from typing import Any

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.artifact.model.nodes import action_records, effect_records
from maintainer.catalog import installed, record_kinds
from tests.support.plans import plan, table_plan


def _tags(records: tuple[type[Any], ...]) -> set[str]:
    return {kind for record in records for kind in record_kinds(record)}


def test_every_action_kind_is_labelled_by_the_catalog_and_no_other() -> None:
    assert _tags(action_records(installed())) == {label.kind for label in installed().action_labels}


def test_effects_are_tagged_by_service_family() -> None:
    assert _tags(effect_records(installed())) == {
        "rollback", "compaction", "clustering", "clean", "metadata", "orphan_files", "savepoint",
        "archive",
    }  # fmt: skip


def test_actions_of_selects_by_record_type_in_plan_order() -> None:
    from maintainer.artifact.model import DeleteFile, DeletePartition

    first = DeleteFile(target="p/a.parquet", reason="r", size=1, partition="p")
    second = DeleteFile(target="p/b.parquet", reason="r", size=2, partition="p")
    emptied = DeletePartition(target="q", reason="r")
    node = NodePlan(table="t", service="clean", status=NodeStatus.CHANGES, actions=(first, emptied, second))
    assert node.actions_of(DeleteFile) == [first, second]
    assert node.actions_of(DeletePartition) == [emptied]


def test_actions_of_a_large_node_are_its_actions_of_that_type_in_plan_order_each_time() -> None:
    """Large nodes' actions are grouped by type once; what each call returns is the scan's, a
    list of its own (a caller may change it), for every kind, one the node has none of included."""
    from maintainer.artifact.model import DeleteFile, DeletePartition, FinishPendingClean

    actions: list[Any] = []
    for index in range(600):
        actions.append(
            DeleteFile(target=f"p{index % 7}/f{index}.parquet", reason="r", size=index, partition="p")
        )
        if index % 50 == 0:
            actions.append(DeletePartition(target=f"q{index}", reason="r"))
    node = NodePlan(table="t", service="clean", status=NodeStatus.CHANGES, actions=tuple(actions))
    for kind in (DeleteFile, DeletePartition, FinishPendingClean, DeleteFile):
        first = node.actions_of(kind)
        assert first == [a for a in actions if isinstance(a, kind)], kind
        first.clear()
        assert node.actions_of(kind) == [a for a in actions if isinstance(a, kind)], kind


def test_a_rollback_node_written_before_its_sizes_reads_with_zero_bytes() -> None:
    """Plans made before the rollback's bytes were recorded still read (the fields default)."""
    from maintainer.artifact.model import Plan, RollbackAction, RollbackEffect, dump_body, read_body

    action = RollbackAction(
        kind="rollback", target="1", reason="r", action="commit", state="INFLIGHT", source="markers",
        delete_files=("p/a.parquet",), rollback_blocks_for=(), rollback_instant=None, delete_bytes=7,
    )  # fmt: skip
    effect = RollbackEffect(rollbacks=("1",), files=1, rollback_blocks=0, left_alone=(), bytes=7)
    node = NodePlan(
        table="t", service="rollback", status=NodeStatus.CHANGES, actions=(action,), effect=effect
    )
    body = dump_body(Plan(project="p", target="dev", tables=(table_plan("t", (node,)),)))
    older = body["tables"][0]["nodes"][0]
    del older["actions"][0]["delete_bytes"], older["effect"]["bytes"]
    (read,) = read_body(body).tables[0].nodes
    assert read.actions_of(RollbackAction)[0].delete_bytes == 0
    assert isinstance(read.effect, RollbackEffect) and read.effect.bytes == 0 and read.effect.files == 1


def test_delete_files_made_through_the_slots_equal_the_constructed_ones() -> None:
    from maintainer.artifact.model import DeleteFile

    rows = [("p/a.parquet", "old", 3, "p"), ("b.parquet", "older", 0, "")]
    made = DeleteFile.many(rows)
    built = [DeleteFile(target=t, reason=r, size=s, partition=p) for t, r, s, p in rows]
    assert made == built and [hash(a) for a in made] == [hash(a) for a in built]
    made_plan, built_plan = (
        plan(
            table_plan(
                "t", (NodePlan(table="t", service="clean", status=NodeStatus.CHANGES, actions=tuple(a)),)
            )
        )
        for a in (made, built)
    )
    assert made_plan.body() == built_plan.body()
