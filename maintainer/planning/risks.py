"""Risk flags: what a reviewer must not miss among a plan's changes.

* **high**: hard to undo or invisible in file counts: dropping a metadata table (with its
  record index, writers re-index every base file), deleting savepoints (the files they keep
  become cleanable);
* **destructive**: data files or timeline history go: cleans, rollbacks of failed writes,
  partitions deleted, instants archived (time travel and incremental reads to them end).

Compaction rewrites and savepoints created carry no flag. Pure: computed from the plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from maintainer.artifact.model import (
    ArchiveInstant,
    CleanEffect,
    DeleteFile,
    DeletePartition,
    DeleteSavepoint,
    DropMetadataTable,
    NodePlan,
    NodeStatus,
    RollbackAction,
)
from maintainer.units import count, human_bytes

INDEX_PARTITIONS = ("record_index", "secondary_index", "expr_index", "partition_stats")


class RiskLevel(str, Enum):
    HIGH = "high"
    DESTRUCTIVE = "destructive"


@dataclass(frozen=True, slots=True)
class Risk:
    node: str
    level: RiskLevel
    flag: str
    """A few words, for a table cell: ``drops the metadata table``."""
    detail: str
    """What it costs, for the risk section."""

    @property
    def marked(self) -> str:
        return f"⚠ {self.flag}" if self.level is RiskLevel.HIGH else self.flag


def _metadata_table(node: NodePlan) -> list[Risk]:
    risks = []
    for action in node.actions_of(DropMetadataTable):
        parts = ", ".join(action.partitions) or "folder only"
        indexes = [p for p in action.partitions if p.startswith(INDEX_PARTITIONS)]
        cost = (
            f"its {', '.join(indexes)} go too: writers that use them re-index every base file, and "
            "lookups scan until then"
            if indexes
            else "readers and writers list storage until a writer rebuilds it"
        )
        risks.append(
            Risk(node.id, RiskLevel.HIGH, "drops the metadata table", f"metadata table ({parts}): {cost}")
        )
    return risks


def _savepoints(node: NodePlan) -> list[Risk]:
    targets = [a.target for a in node.actions_of(DeleteSavepoint)]
    if not targets:
        return []
    detail = f"savepoints {', '.join(targets)} go: the files only they keep become cleanable"
    return [Risk(node.id, RiskLevel.HIGH, f"deletes {count(len(targets), 'savepoint')}", detail)]


def _deletes(node: NodePlan) -> list[Risk]:
    risks = []
    files = node.actions_of(DeleteFile)
    if files:
        size = human_bytes(sum(a.size for a in files))
        effect = node.effect if isinstance(node.effect, CleanEffect) else None
        since = (
            f": time travel and incremental reads before {effect.earliest_commit_to_retain} end"
            if effect is not None and effect.earliest_commit_to_retain
            else ""
        )
        flag = f"deletes {count(len(files), 'file')} ({size})"
        risks.append(Risk(node.id, RiskLevel.DESTRUCTIVE, flag, f"older file versions deleted{since}"))
    partitions = node.actions_of(DeletePartition)
    if partitions:
        flag = f"deletes {count(len(partitions), 'partition')}"
        risks.append(Risk(node.id, RiskLevel.DESTRUCTIVE, flag, "emptied partition folders deleted"))
    rollbacks = node.actions_of(RollbackAction)
    doomed = sum(len(a.delete_files) for a in rollbacks)
    if rollbacks:
        flag = f"rolls back {count(len(rollbacks), 'write')}"
        detail = f"{count(doomed, 'file')} of failed or abandoned writes deleted"
        risks.append(Risk(node.id, RiskLevel.DESTRUCTIVE, flag, detail))
    return risks


def _archive(node: NodePlan) -> list[Risk]:
    instants = node.actions_of(ArchiveInstant)
    if not instants:
        return []
    last = max(a.target for a in instants)
    detail = f"instants up to {last} leave the active timeline: time travel and incremental reads to them end"
    return [Risk(node.id, RiskLevel.DESTRUCTIVE, f"archives {count(len(instants), 'instant')}", detail)]


def node_risks(node: NodePlan) -> list[Risk]:
    """The node's risk flags (none unless it has changes), high ones first."""
    if node.status is not NodeStatus.CHANGES:
        return []
    return [*_metadata_table(node), *_savepoints(node), *_deletes(node), *_archive(node)]


def high_risks(nodes: Iterable[NodePlan]) -> list[Risk]:
    return [risk for node in nodes for risk in node_risks(node) if risk.level is RiskLevel.HIGH]
