"""What the rollback executor takes and reports: a planned rollback (its kind, target, plan) and
the paths of an approved plan apply leaves alone."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.payloads import RollbackPlan


class RollbackKind(str, Enum):
    ROLLBACK = "rollback"
    """Roll back a failed write: delete its files, then its instant."""
    FINISH_PENDING_ROLLBACK = "finish_pending_rollback"
    """Finish a rollback that was started before (with its own instant and plan)."""
    REMOVE_ROLLED_BACK_INSTANT = "remove_rolled_back_instant"
    """A completed rollback's target is still on the timeline: only remove its files."""


@dataclass(frozen=True, slots=True)
class PlannedRollback:
    """One rollback apply will carry out."""

    kind: RollbackKind
    target: Instant
    reason: str
    plan: RollbackPlan
    rollback_instant: Instant | None = None
    """The existing rollback instant (pending, or completed for REMOVE_ROLLED_BACK_INSTANT)."""
    source: str = "markers"
    """How the files were found: ``markers`` or ``listing`` (or ``plan`` for a pending rollback)."""

    @property
    def reverts_to_requested(self) -> bool:
        return self.target.action.value in _SERVICE_ACTIONS


_SERVICE_ACTIONS = frozenset({"compaction", "logcompaction", "clustering"})


@dataclass(frozen=True, slots=True)
class DroppedPath:
    """A path the plan asked the rollback of ``target`` to touch that apply leaves alone."""

    path: str
    target: str
    reason: str
