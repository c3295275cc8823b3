"""Roll back a table service's failed attempt before it runs again (compaction, clustering):
the rollback of :mod:`.table_service_rollback` with the service's fault points
(``<service>:rollback_<point>``) and, on a table whose metadata table is kept in sync, the
attempt's metadata deltacommit rolled back right before the rollback completes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from maintainer.clock import Clock, utc_now
from maintainer.executors.common.metadata_sync import metadata_rollback_step
from maintainer.executors.common.table_service_rollback import deleted_files, rollback_table_service
from maintainer.executors.faults import maybe_fail
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Instant
from maintainer.storage import Storage


@dataclass(frozen=True, slots=True)
class RolledBack:
    """What the rollback of an earlier failed attempt did."""

    rollback_instant: str
    deleted: tuple[str, ...]


def _fault(service: str, point: str) -> None:
    maybe_fail(service, f"rollback_{point}")


def roll_back_failed_attempt(
    storage: Storage,
    config: TableConfig,
    service: str,
    attempt: Instant,
    partitions: Iterable[str],
    clock: Clock = utc_now,
    sync_metadata: bool = False,
) -> RolledBack | None:
    """Roll back the failed attempt of ``attempt`` (files in ``partitions``) with a rollback
    instant, or finish the pending rollback of it, leaving it requested; None when there was
    nothing to roll back."""
    sync = metadata_rollback_step(storage, attempt.timestamp, clock) if sync_metadata else None
    outcome = rollback_table_service(
        storage,
        config,
        attempt,
        partitions,
        fault=partial(_fault, service),
        clock=clock,
        before_complete=sync,
    )
    if outcome is None:
        return None
    return RolledBack(outcome.rollback_instant.timestamp, deleted_files(storage, outcome))
