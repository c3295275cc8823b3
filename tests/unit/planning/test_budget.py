"""The fleet's compaction budget: the slices worth most per byte read go first, across tables;
a trimmed node keeps only its taken slices, lists the others with their value, and its totals
follow."""

from __future__ import annotations

from maintainer.artifact.model import (
    CompactionEffect,
    CompactSlice,
    ExecutePendingCompaction,
    NodePlan,
    NodeStatus,
    SliceFile,
)
from maintainer.planning.budget import Candidate, best_first, candidates, chosen


def op(file_id: str, base: int, logs: list[int]) -> CompactSlice:
    return CompactSlice(
        partition="p",
        file_id=file_id,
        base_instant="20260101000000000",
        base_file=SliceFile(name=f"{file_id}_1-0-1_20260101000000000.parquet", size=base),
        log_files=tuple(
            SliceFile(name=f".{file_id}_20260101000000000.log.{i + 1}_1-0-1", size=s)
            for i, s in enumerate(logs)
        ),
        metrics={"TOTAL_IO_WRITE_MB": base / 1024 / 1024},
    )


def node(table: str, *ops: CompactSlice, pending: tuple[str, ...] = ()) -> NodePlan:
    actions: tuple[ExecutePendingCompaction | CompactSlice, ...] = (
        *(ExecutePendingCompaction(target=i, reason="pending") for i in pending),
        *ops,
    )
    return NodePlan(
        table=table,
        service="compaction",
        status=NodeStatus.CHANGES,
        actions=actions,
        effect=CompactionEffect(
            pending_instants=pending,
            slices=len(ops),
            log_files=sum(len(o.log_files) for o in ops),
            input_bytes=sum(o.input_bytes for o in ops),
            expected_output_bytes=sum(o.expected_output_bytes for o in ops),
            strategy="LogFileSizeBasedCompactionStrategy",
            skipped=(),
        ),
        payloads=(f"{table}.compaction.requested",),
    )


def test_value_is_log_bytes_removed_per_byte_read() -> None:
    assert Candidate("t", "p/a", 1000, 250).value == 0.25
    assert Candidate("t", "p/a", 0, 0).value == 0.0


def test_the_best_value_goes_first_across_tables() -> None:
    nodes = [
        node("a", op("a1", 900, [100]), op("a2", 100, [900])),  # values 0.1, 0.9
        node("b", op("b1", 500, [500])),  # 0.5
    ]
    order = [(c.table, c.target) for c in best_first(candidates(nodes))]
    assert order == [("a", "p/a2"), ("b", "p/b1"), ("a", "p/a1")]
    # 2,000 bytes: a2 (1,000) and b1 (1,000) fit; a1 is deferred; b has nothing deferred
    assert chosen(candidates(nodes), 2000) == {"a": frozenset({"p/a2"})}
    assert chosen(candidates(nodes), 10_000) == {}
    # a budget smaller than every slice defers all of them
    assert chosen(candidates(nodes), 10) == {"a": frozenset(), "b": frozenset()}


def test_a_smaller_slice_that_fits_is_taken_after_a_bigger_one_that_does_not() -> None:
    nodes = [node("a", op("big", 100, [5000]), op("small", 10, [40]))]  # values 0.98, 0.8
    assert chosen(candidates(nodes), 100) == {"a": frozenset({"p/small"})}


def test_only_changes_of_compaction_nodes_count() -> None:
    blocked = NodePlan(table="c", service="compaction", status=NodeStatus.BLOCKED, reasons=("x",))
    other = NodePlan(table="c", service="clean", status=NodeStatus.CHANGES)
    assert candidates([blocked, other]) == []
