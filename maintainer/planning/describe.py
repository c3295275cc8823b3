"""Plans in words, shared by the text and markdown views: the summary line in the spirit of
Terraform's "Plan: N to add, ...", a node's headline, per-table figures."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from maintainer.artifact.model import (
    Action,
    CompactionEffect,
    DeleteFile,
    NodePlan,
    NodeStatus,
    Plan,
    RollbackEffect,
    TablePlan,
)
from maintainer.catalog import installed
from maintainer.planning.risks import Risk, RiskLevel, node_risks
from maintainer.units import human_bytes


def _action_labels() -> dict[str, tuple[str, str]]:
    """(one, many) by action kind, in summary order (the catalog's)."""
    return {label.kind: (label.one, label.many) for label in installed().action_labels}


def plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def action_counts(nodes: Iterable[NodePlan]) -> Counter[str]:
    return Counter(a.kind for n in nodes if n.status is NodeStatus.CHANGES for a in n.actions)


def bytes_to_delete(nodes: Iterable[NodePlan]) -> int:
    return sum(a.size for n in nodes if n.status is NodeStatus.CHANGES for a in n.actions_of(DeleteFile))


def compaction_bytes(nodes: Iterable[NodePlan]) -> int:
    """Bytes the nodes' compactions read (base and log files of their slices)."""
    return sum(
        n.effect.input_bytes
        for n in nodes
        if n.status is NodeStatus.CHANGES and isinstance(n.effect, CompactionEffect)
    )


@dataclass(frozen=True, slots=True)
class RolledBack:
    """The files the nodes' rollbacks delete, and their bytes as listed when planned."""

    files: int = 0
    bytes: int = 0


ROLLBACK_KINDS = ("rollback", "finish_pending_rollback", "remove_rolled_back_instant")


def rolled_back(nodes: Iterable[NodePlan]) -> RolledBack:
    effects = [
        n.effect for n in nodes if n.status is NodeStatus.CHANGES and isinstance(n.effect, RollbackEffect)
    ]
    return RolledBack(sum(e.files for e in effects), sum(e.bytes for e in effects))


def describe_counts(
    counts: Counter[str], deleted_bytes: int, compacted_bytes: int = 0, rollbacks: RolledBack = RolledBack()
) -> list[str]:
    """The counts in words; the files rollbacks delete go with the first rollback kind."""
    parts = []
    rollback_files_told = False
    labels = _action_labels()
    for kind in sorted(counts, key=lambda k: (list(labels).index(k) if k in labels else 99, k)):
        one, many = labels.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
        text = plural(counts[kind], one, many)
        if kind == "delete_file":
            text += f" ({human_bytes(deleted_bytes)})"
        if kind == "compact_slice" and compacted_bytes:
            text += f" ({human_bytes(compacted_bytes)} read)"
        if kind in ROLLBACK_KINDS and rollbacks.files and not rollback_files_told:
            text += f" ({plural(rollbacks.files, 'file', 'files')} to delete, {human_bytes(rollbacks.bytes)})"
            rollback_files_told = True
        parts.append(text)
    return parts


def summary_line(plan: Plan, why: str = "see why below", maintenance: str | None = None) -> str:
    """One line: what the plan changes, what is blocked, what has nothing to do; ``why`` says
    where the reasons of blocked nodes are (below it in plan.md, above it in the text view).
    ``maintenance`` (``maintenance changes for 300 tables: 200 destructive, 100 rewrite``) is
    what the manifest changes since the baseline alter: a change even when no file is touched
    today (a lower retention deletes on a later run), so never "No changes" beside it."""
    nodes = plan.nodes()
    statuses = Counter(n.status for n in nodes)
    tail = (
        f"{plural(statuses[NodeStatus.BLOCKED], 'node', 'nodes')} blocked, "
        f"{statuses[NodeStatus.NO_OP]:,} with nothing to do"
    )
    also = f" Also {maintenance}." if maintenance else ""
    if not plan.has_changes:
        if statuses[NodeStatus.BLOCKED]:  # never "No changes" while work is held back
            return f"No changes can be made: {tail}. Blocked nodes are not maintained; {why}.{also}"
        if maintenance:
            return f"No files to change now; {maintenance}. {tail}."
        return f"No changes. {tail}."
    changed_tables = sum(1 for t in plan.tables if any(n.status is NodeStatus.CHANGES for n in t.nodes))
    parts = describe_counts(
        action_counts(nodes), bytes_to_delete(nodes), compaction_bytes(nodes), rolled_back(nodes)
    )
    return f"Plan: {', '.join(parts)} in {plural(changed_tables, 'table', 'tables')}; {tail}.{also}"


def node_headline(node: NodePlan) -> str:
    """What the node does, in a few words."""
    if node.status is NodeStatus.BLOCKED:
        return f"blocked: {node.reasons[0]}" if node.reasons else "blocked"
    if node.status is NodeStatus.NO_OP:
        return "nothing to do"
    counts = action_counts([node])
    return ", ".join(
        describe_counts(counts, bytes_to_delete([node]), compaction_bytes([node]), rolled_back([node]))
    )


def other_actions(actions: Iterable[Action]) -> list[str]:
    return [f"{a.kind} {a.target}: {a.reason}" for a in actions if not isinstance(a, DeleteFile)]


def file_lines(node: NodePlan, limit: int) -> list[str]:
    files = node.actions_of(DeleteFile)
    lines = [f"{a.target} ({human_bytes(a.size)}): {a.reason}" for a in files[:limit]]
    if len(files) > limit:
        lines.append(f"... and {len(files) - limit:,} more (all listed in plan.json)")
    return lines


def partition_counts(node: NodePlan) -> list[tuple[str, int, int]]:
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for action in node.actions_of(DeleteFile):
        files[action.partition] += 1
        sizes[action.partition] += action.size
    return [(p, files[p], sizes[p]) for p in sorted(files)]


def shared_block_reason(table: TablePlan) -> str | None:
    """The one reason every node of the table is blocked for (an unreadable table, a metadata
    table), else None."""
    reasons = {n.reasons for n in table.nodes}
    blocked = all(n.status is NodeStatus.BLOCKED for n in table.nodes)
    if table.nodes and blocked and len(reasons) == 1 and len(table.nodes) > 1:
        only = next(iter(reasons))
        return "; ".join(only) if only else None
    return None


def table_title(table: TablePlan) -> str:
    kind = table.table_type if table.version == 0 else f"{table.table_type}, table version {table.version}"
    return f"{table.name} ({kind}) {table.path}"


@dataclass(frozen=True, slots=True)
class TableFigures:
    """One table's plan in figures, for summary rows and ordering."""

    table: TablePlan
    changes: tuple[NodePlan, ...]
    blocked: tuple[NodePlan, ...]
    files_deleted: int
    bytes_deleted: int
    slices: int
    bytes_compacted: int
    other: tuple[str, ...]
    risks: tuple[Risk, ...]

    @property
    def idle(self) -> bool:
        return not self.changes and not self.blocked

    @property
    def high_risk(self) -> bool:
        return any(r.level is RiskLevel.HIGH for r in self.risks)


def table_figures(table: TablePlan) -> TableFigures:
    changes = tuple(n for n in table.nodes if n.status is NodeStatus.CHANGES)
    counts = action_counts(changes)
    other = describe_counts(
        Counter({k: v for k, v in counts.items() if k not in ("delete_file", "compact_slice")}),
        0,
        rollbacks=rolled_back(changes),
    )
    return TableFigures(
        table,
        changes,
        tuple(n for n in table.nodes if n.status is NodeStatus.BLOCKED),
        counts["delete_file"],
        bytes_to_delete(changes),
        counts["compact_slice"],
        compaction_bytes(changes),
        tuple(other),
        tuple(risk for node in changes for risk in node_risks(node)),
    )
