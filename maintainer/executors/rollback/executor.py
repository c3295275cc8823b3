"""Carry out one planned rollback (``executors.common.rollback_instant`` does the work).

A completed rollback whose target is still on the timeline only has the target removed; any
other planned rollback (new, or pending and finished with its own instant and plan) goes through
the whole rollback action.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.executors.common.metadata_sync import metadata_rollback_step
from maintainer.executors.common.rollback_instant import InstantRollback, remove_target, roll_back_instant
from maintainer.executors.faults import Fault, no_fault
from maintainer.executors.rollback.model import DroppedPath, PlannedRollback, RollbackKind
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import RollbackMetadata
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner


@dataclass(frozen=True)
class RollbackOutcome:
    rollback_instant: Instant | None
    metadata: RollbackMetadata | None
    removed_instant_files: tuple[str, ...]
    dropped: tuple[DroppedPath, ...] = ()
    """Paths the approved plan asked for that were left alone, with the reason (drift)."""


def run_rollback(
    storage: Storage,
    config: TableConfig,
    planned: PlannedRollback,
    *,
    runner: TaskRunner = IN_PROCESS,
    clock: Clock = utc_now,
    fault: Fault = no_fault,
    sync_metadata: bool = False,
) -> RollbackOutcome:
    """Carry out ``planned``; returns the rollback instant and what it recorded. With
    ``sync_metadata``, the target's metadata deltacommit is rolled back right before the
    rollback completes, with the rollback's instant time."""
    if planned.kind is RollbackKind.REMOVE_ROLLED_BACK_INSTANT:
        writer = TimelineWriter(storage, config, clock)
        removed = remove_target(writer, planned.target, planned.reverts_to_requested)
        return RollbackOutcome(planned.rollback_instant, None, removed)
    rollback = InstantRollback(
        planned.target, planned.plan, planned.rollback_instant, planned.reverts_to_requested
    )
    sync = metadata_rollback_step(storage, planned.target.timestamp, clock)
    done = roll_back_instant(
        storage,
        config,
        rollback,
        runner=runner,
        clock=clock,
        fault=fault,
        before_complete=sync if sync_metadata else None,
    )
    return RollbackOutcome(done.rollback_instant, done.metadata, done.removed_instant_files)
