"""Roll back one instant, as Hudi's rollback action executor does (Spark-agnostic core); the
rollback service and the table services (a failed compaction attempt) both do it.

``.rollback.requested`` (the HoodieRollbackPlan) -> ``.rollback.inflight`` (empty) -> the
requests (through a ``TaskRunner``: in process, or one Spark task each) -> the completed
``rollback`` (HoodieRollbackMetadata) -> the rolled-back instant's timeline files removed
(requested, then inflight; a table service goes back to requested instead) -> its markers and
heartbeat deleted.

Every step can be re-run: a pending rollback is finished with its own instant and plan.
``fault`` is called with the name of each step once it is done (tests make it raise, as a crash
would).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.executors.common.rollback_deletes import RequestContext, RequestResult, execute_request
from maintainer.executors.faults import Fault, no_fault
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import InstantInfo, RollbackMetadata, RollbackPartitionMetadata, RollbackPlan
from maintainer.hudi.table.snapshot import HEARTBEAT_DIR, MARKERS_DIR
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner


@dataclass(frozen=True, slots=True)
class InstantRollback:
    """The rollback of one instant to carry out."""

    target: Instant
    plan: RollbackPlan
    rollback_instant: Instant | None = None
    """The pending rollback instant of an earlier attempt, finished with its own plan (None:
    a new rollback instant is created)."""
    reverts_to_requested: bool = False
    """A table service (compaction, clustering) goes back to requested; a write is removed."""
    instant_time: str | None = None
    """The new rollback instant's time (None: a fresh one; a metadata-table rollback takes the
    data-table rollback's)."""
    removes_completed: bool = False
    """The target is removed even when completed (a metadata deltacommit whose data instant
    failed after it completed)."""


@dataclass(frozen=True, slots=True)
class RolledBackInstant:
    rollback_instant: Instant
    """The completed rollback."""
    metadata: RollbackMetadata
    removed_instant_files: tuple[str, ...]
    """The target's timeline files removed (its inflight file, for a table service)."""


def _start(writer: TimelineWriter, rollback: InstantRollback, fault: Fault) -> Instant:
    """The rollback instant, inflight (created, or resumed from an earlier attempt)."""
    existing = rollback.rollback_instant
    if existing is None:
        plan = payloads.encode_avro(rollback.plan)
        mirrored = rollback.instant_time is not None
        existing = writer.create_requested(
            Action.ROLLBACK, plan, instant_time=rollback.instant_time, mirrored=mirrored
        )
        fault("after_requested")
    if existing.state is State.REQUESTED:
        existing = writer.transition_to_inflight(existing)
        fault("after_inflight")
    return existing


def _merge(results: Sequence[RequestResult]) -> dict[str, RollbackPartitionMetadata]:
    merged: dict[str, RollbackPartitionMetadata] = {}
    for result in results:
        old = merged.get(result.partition) or RollbackPartitionMetadata(
            partition_path=result.partition, rollback_log_files={}, log_files_from_failed_commit={}
        )
        merged[result.partition] = RollbackPartitionMetadata(
            partition_path=result.partition,
            success_delete_files=old.success_delete_files + result.deleted,
            failed_delete_files=old.failed_delete_files + result.failed,
            rollback_log_files={**(old.rollback_log_files or {}), **result.rollback_log_files},
            log_files_from_failed_commit={
                **(old.log_files_from_failed_commit or {}),
                **result.log_files_from_failed_commit,
            },
        )
    return dict(sorted(merged.items()))


def _metadata(
    rollback: Instant, target: Instant, results: Sequence[RequestResult], started_ms: int
) -> RollbackMetadata:
    partitions = _merge(results)
    return RollbackMetadata(
        start_rollback_time=rollback.timestamp,
        time_taken_in_millis=max(0, int(time.time() * 1000) - started_ms),
        total_files_deleted=sum(len(p.success_delete_files) for p in partitions.values()),
        commits_rollback=(target.timestamp,),
        partition_metadata=partitions,
        instants_rollback=(InstantInfo(commit_time=target.timestamp, action=target.action.value),),
    )


def remove_target(
    writer: TimelineWriter, target: Instant, reverts_to_requested: bool, removes_completed: bool = False
) -> tuple[str, ...]:
    """Remove the rolled-back instant (or revert a table service to requested), then its markers
    and heartbeat."""
    timeline = writer.timeline()
    entry = timeline.entry(target.timestamp, target.action)
    removed: list[str] = []
    if entry is not None and reverts_to_requested:
        if State.INFLIGHT in entry.state_files and State.COMPLETED not in entry.state_files:
            writer.revert_inflight_to_requested(target.with_state(State.INFLIGHT))
            removed.append(entry.state_files[State.INFLIGHT])
    elif entry is not None and (removes_completed or State.COMPLETED not in entry.state_files):
        removed += writer.delete_instant(target, timeline)
    writer.storage.delete_dir(f"{MARKERS_DIR}/{target.timestamp}")
    writer.storage.delete(f"{HEARTBEAT_DIR}/{target.timestamp}")
    return tuple(removed)


def roll_back_instant(
    storage: Storage,
    config: TableConfig,
    rollback: InstantRollback,
    *,
    runner: TaskRunner = IN_PROCESS,
    clock: Clock = utc_now,
    fault: Fault = no_fault,
    before_complete: Callable[[Instant], object] | None = None,
) -> RolledBackInstant:
    """Carry out ``rollback``; returns the completed rollback instant and what it recorded.
    ``before_complete`` runs right before the rollback completes (the metadata table's sync)."""
    writer = TimelineWriter(storage, config, clock)
    started_ms = int(time.time() * 1000)
    inflight = _start(writer, rollback, fault)
    with writer.heartbeat(inflight.timestamp):
        context = RequestContext(
            storage, storage.uri(""), inflight.timestamp, rollback.target.timestamp, config.version
        )
        requests = list(rollback.plan.rollback_requests or ())
        results = runner.run(functools.partial(execute_request, context), requests)
        fault("after_deletes")
        metadata = _metadata(inflight, rollback.target, results, started_ms)
        if before_complete is not None:
            before_complete(inflight)
            fault("after_metadata_table")
        completed = writer.complete(inflight, payloads.encode_avro(metadata))
    fault("after_completed")
    removed = remove_target(
        writer, rollback.target, rollback.reverts_to_requested, rollback.removes_completed
    )
    return RolledBackInstant(completed, metadata, removed)
