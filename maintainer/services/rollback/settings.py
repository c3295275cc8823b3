"""The manifest's ``rollback`` block: its settings with Hudi's names and defaults (HUDI.md §5)."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from maintainer.project.settings_types import Duration, FrozenModel, NonNegativeInt, PositiveInt


class RollbackSpec(FrozenModel):
    """Roll back failed writes (pending commits and deltacommits whose writer is gone)."""

    enabled: bool = True
    """false turns the service off for this table."""
    failed_writes_policy: Literal["eager", "lazy"] = "eager"
    """hoodie.clean.failed.writes.policy: eager rolls back every pending write older than min_age;
    lazy only those whose heartbeat expired."""
    min_age: Duration = timedelta(hours=1)
    """A pending write younger than this is never rolled back, whatever the policy. The default (1h)
    leaves a writer that is still running alone; 0s rolls back like Hudi's eager writer."""
    heartbeat_interval_ms: PositiveInt = 60000
    """hoodie.client.heartbeat.interval_in_ms."""
    heartbeat_tolerable_misses: NonNegativeInt = 2
    """hoodie.client.heartbeat.tolerable.misses: a heartbeat older than interval x misses has expired."""

    @property
    def heartbeat_expiry_ms(self) -> int:
        return self.heartbeat_interval_ms * self.heartbeat_tolerable_misses
