"""The orphan planner (pure): which of the files no instant accounts for are removed.

:func:`maintainer.hudi.table.orphans.find_orphans` already leaves alone what ``HoodieRepairTool``'s
rules keep and more: files of pending instants (and, on table version 6 while a write is
pending, every unlisted log file), files older than the active timeline (we do not read the
archived timeline: ``HoodieRepairTool`` does, and would remove a dangling file of an archived
instant; we count them instead), files younger than ``min_age``. Here, on a table with a
metadata table, a file its ``files`` partition lists is kept too: Hudi's readers list files
from there, and a file they list is no orphan to them (counted as ``left_listed``).
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.table.orphans import OrphanFile
from maintainer.services.orphans.state import OrphanInputs


@dataclass(frozen=True)
class OrphanPlanResult:
    remove: tuple[OrphanFile, ...]
    left_pending: int
    left_archived: int
    left_young: int
    left_listed: int

    @property
    def bytes(self) -> int:
        return sum(o.size for o in self.remove)


def plan_orphans(inputs: OrphanInputs) -> OrphanPlanResult:
    scan, listed = inputs.scan, inputs.metadata_listed
    remove = tuple(o for o in scan.orphans if listed is None or o.path not in listed)
    return OrphanPlanResult(
        remove,
        left_pending=scan.pending,
        left_archived=scan.archived,
        left_young=scan.young,
        left_listed=len(scan.orphans) - len(remove),
    )


def left_alone_reasons(result: OrphanPlanResult, min_age: str) -> list[str]:
    """Why the files found but kept are kept, one line per reason with a count."""
    reasons = [
        (result.left_pending, "a pending instant may still complete them"),
        (result.left_archived, "older than the active timeline (their instant is archived)"),
        (result.left_young, f"younger than min_age {min_age}"),
        (result.left_listed, "the metadata table's files partition lists them"),
    ]
    return [f"{count} file(s) left alone: {why}" for count, why in reasons if count]
