"""Review gates at planning time: a node over one of its table's gates
(:class:`~maintainer.project.gates.GatesSpec`) is planned blocked, naming the figure, the gate
and where it is set, and apply skips it. Nothing is cut down to fit: half a clean would be a
plan nobody asked for."""

from __future__ import annotations

from dataclasses import dataclass, replace

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.artifact.model.clean import DeleteFile
from maintainer.artifact.model.compaction import CompactionEffect, CompactSlice
from maintainer.project import TableSpec
from maintainer.project.gates import GatesSpec
from maintainer.units import human_bytes


@dataclass(frozen=True, slots=True)
class GateFinding:
    """A node over a gate: the gate, its limit, the node's figure and what the figure is."""

    gate: str
    limit: int
    found: int
    what: str
    in_bytes: bool

    def within(self) -> str:
        shown = human_bytes if self.in_bytes else _count
        return f"within gates.{self.gate}: {self.what} {shown(self.found)} of {shown(self.limit)} allowed"

    def describe(self, spec: TableSpec) -> str:
        shown = human_bytes if self.in_bytes else _count
        return (
            f"over the gate gates.{self.gate} of table {spec.name} ({spec.manifest}): {self.what} "
            f"{shown(self.found)}, the gate allows {shown(self.limit)}; raise the gate in the "
            "manifest (a reviewed change) or maintain the table more often"
        )


def _count(value: int) -> str:
    return f"{value:,}"


def deleted_files(node: NodePlan) -> tuple[int, int]:
    """(files, bytes) a clean node deletes."""
    deletes = node.actions_of(DeleteFile)
    return len(deletes), sum(action.size for action in deletes)


def compaction_bytes(node: NodePlan) -> int:
    """Bytes a compaction node reads (base and log files of the slices it compacts)."""
    if isinstance(node.effect, CompactionEffect):
        return node.effect.input_bytes
    return sum(action.input_bytes for action in node.actions_of(CompactSlice))


def measured(node: NodePlan, gates: GatesSpec) -> list[GateFinding]:
    """The node's figure for each of its gates that is set."""
    figures: list[tuple[str, int | None, int, str, bool]] = []
    if node.service == "clean":
        files, size = deleted_files(node)
        figures += [
            ("max_delete_files", gates.max_delete_files, files, "this clean deletes", False),
            ("max_delete_bytes", gates.max_delete_bytes, size, "this clean deletes", True),
        ]
    if node.service == "compaction":
        read = compaction_bytes(node)
        figures.append(
            ("max_compaction_bytes", gates.max_compaction_bytes, read, "this compaction reads", True)
        )
    return [
        GateFinding(gate, limit, found, what, in_bytes)
        for gate, limit, found, what, in_bytes in figures
        if limit is not None
    ]


def gated(node: NodePlan, spec: TableSpec) -> NodePlan:
    """The node blocked with why when it is over one of the table's gates; else the node, saying
    each gate's figure for the reviewer."""
    if spec.gates is None or node.status is not NodeStatus.CHANGES:
        return node
    figures = measured(node, spec.gates)
    over = tuple(figure.describe(spec) for figure in figures if figure.found > figure.limit)
    if over:
        return NodePlan(table=node.table, service=node.service, status=NodeStatus.BLOCKED, reasons=over)
    return replace(node, reasons=(*node.reasons, *(figure.within() for figure in figures)))
