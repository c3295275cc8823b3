"""What an archival takes: the instants the archive planner selects (oldest first, every state of
each), why, and the boundaries it stopped at; the archive executor writes exactly these."""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.instants.instant import Action, Instant


@dataclass(frozen=True, slots=True)
class Boundary:
    """An instant archival must stop before, and why."""

    timestamp: str
    reason: str


@dataclass(frozen=True)
class ArchivePlanResult:
    instants: tuple[Instant, ...] = ()
    """Instants to archive, oldest first (every state of each)."""
    reasons: tuple[str, ...] = ()
    boundaries: tuple[Boundary, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.instants)

    @property
    def commits(self) -> tuple[Instant, ...]:
        return tuple(i for i in self.instants if i.action not in (Action.CLEAN, Action.ROLLBACK))
