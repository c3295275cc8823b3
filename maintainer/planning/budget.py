"""The fleet's compaction budget (``budget: {compaction_bytes: ...}`` in maintainer_project.yml,
``plan --budget-bytes``): when the slices every table's compaction would read add up to more
than the budget, the plan takes the slices worth most per byte read first (value: the log
bytes a compaction removes from every read, per byte it reads), across tables, and leaves the
rest for a later plan, listed with their value in the compaction's ``deferred``.

A table whose compaction is trimmed is planned again with the slices it may take, so that the
nodes after it (the clean, planned on the table as the compaction leaves it) agree with it.
Pending compactions are never deferred: they are finished first, whatever the budget."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from maintainer.artifact.model import CompactionEffect, CompactSlice, DeferredSlice, NodePlan, NodeStatus
from maintainer.hudi.table.state import TableState
from maintainer.services.compaction.node import with_read_amplification
from maintainer.units import human_bytes

SERVICE = "compaction"


@dataclass(frozen=True, slots=True)
class Candidate:
    table: str
    target: str
    input_bytes: int
    log_bytes: int

    @property
    def value(self) -> float:
        return round(self.log_bytes / self.input_bytes, 4) if self.input_bytes else 0.0


def candidates(nodes: Iterable[NodePlan]) -> list[Candidate]:
    found = []
    for node in nodes:
        if node.service != SERVICE or node.status is not NodeStatus.CHANGES:
            continue
        for op in node.actions_of(CompactSlice):
            found.append(Candidate(node.table, op.target, op.input_bytes, op.log_bytes))
    return found


def best_first(found: Iterable[Candidate]) -> list[Candidate]:
    """Most value per byte first; the smaller slice first between equals; then by name."""
    return sorted(found, key=lambda c: (-c.value, c.input_bytes, c.table, c.target))


def chosen(found: Iterable[Candidate], budget: int) -> dict[str, frozenset[str]]:
    """Per table, the slices the budget takes (best first, each while it fits). Tables none of
    whose slices is deferred are not listed."""
    taken: dict[str, set[str]] = {}
    deferred: set[str] = set()
    left = budget
    for candidate in best_first(found):
        taken.setdefault(candidate.table, set())
        if candidate.input_bytes <= left:
            taken[candidate.table].add(candidate.target)
            left -= candidate.input_bytes
        else:
            deferred.add(candidate.table)
    return {table: frozenset(targets) for table, targets in taken.items() if table in deferred}


def within_budget(node: NodePlan, keep: frozenset[str], budget: int, table: TableState) -> NodePlan:
    """The compaction node with only the slices in ``keep``; the others are ``deferred`` (with
    their value) and its totals are those of what it still compacts."""
    effect = node.effect
    if node.service != SERVICE or not isinstance(effect, CompactionEffect):
        return node
    ops = node.actions_of(CompactSlice)
    kept = [op for op in ops if op.target in keep]
    left_out = [op for op in ops if op.target not in keep]
    if not left_out:
        return node
    deferred = tuple(
        DeferredSlice(target=op.target, input_bytes=op.input_bytes, log_bytes=op.log_bytes,
                      value=Candidate(node.table, op.target, op.input_bytes, op.log_bytes).value)
        for op in left_out
    )  # fmt: skip
    actions = tuple(a for a in node.actions if not isinstance(a, CompactSlice) or a.target in keep)
    reason = (
        f"the fleet's compaction budget ({human_bytes(budget)} read) defers {len(left_out)} of "
        f"{len(ops)} file slice(s) ({human_bytes(sum(d.input_bytes for d in deferred))}): the slices "
        "worth most per byte read across the fleet go first"
    )
    has_work = bool(kept) or bool(effect.pending_instants)
    trimmed = replace(
        node,
        status=NodeStatus.CHANGES if has_work else NodeStatus.NO_OP,
        reasons=(*node.reasons, reason),
        actions=actions,
        payloads=node.payloads if kept else (),
        effect=replace(
            effect,
            slices=len(kept),
            log_files=sum(len(op.log_files) for op in kept),
            input_bytes=sum(op.input_bytes for op in kept),
            expected_output_bytes=sum(op.expected_output_bytes for op in kept),
            deferred=deferred,
        ),
    )
    return with_read_amplification(trimmed, table)
