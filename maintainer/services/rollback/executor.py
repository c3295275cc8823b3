"""Carry out one planned rollback, as Hudi's rollback action executor does (Spark-agnostic core).

``.rollback.requested`` (the HoodieRollbackPlan) -> ``.rollback.inflight`` (empty) -> the
requests (through ``runner``: local, or one Spark task each) -> the completed ``rollback``
(HoodieRollbackMetadata) -> the rolled-back instant's timeline files removed (requested, then
inflight; a table service goes back to requested instead) -> its markers and heartbeat deleted.

Every step can be re-run: a pending rollback is finished with its own instant and plan, a
completed one whose target is still on the timeline only has the target removed. ``fault`` is
called with the name of each step once it is done (tests make it raise, as a crash would).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.hudi import payloads
from maintainer.hudi.instant import Action, Instant, State
from maintainer.hudi.payloads import InstantInfo, RollbackMetadata, RollbackPartitionMetadata
from maintainer.hudi.properties import TableConfig
from maintainer.hudi.table import HEARTBEAT_DIR, MARKERS_DIR
from maintainer.hudi.timeline_writer import TimelineWriter
from maintainer.services.rollback.approval import DroppedPath
from maintainer.services.rollback.deletes import RequestContext, RequestResult, execute_request
from maintainer.services.rollback.model import PlannedRollback, RollbackKind
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner

Fault = Callable[[str], None]


def no_fault(point: str) -> None:
    return None


@dataclass(frozen=True)
class RollbackOutcome:
    rollback_instant: Instant | None
    metadata: RollbackMetadata | None
    removed_instant_files: tuple[str, ...]
    dropped: tuple[DroppedPath, ...] = ()
    """Paths the approved plan asked for that were left alone, with the reason (drift)."""


def _start(writer: TimelineWriter, planned: PlannedRollback, fault: Fault) -> Instant:
    """The rollback instant, inflight (created, or resumed from an earlier attempt)."""
    existing = planned.rollback_instant
    if existing is None:
        existing = writer.create_requested(Action.ROLLBACK, payloads.encode_avro(planned.plan))
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
    rollback: Instant, planned: PlannedRollback, results: Sequence[RequestResult], started_ms: int
) -> RollbackMetadata:
    partitions = _merge(results)
    target = planned.target
    return RollbackMetadata(
        start_rollback_time=rollback.timestamp,
        time_taken_in_millis=max(0, int(time.time() * 1000) - started_ms),
        total_files_deleted=sum(len(p.success_delete_files) for p in partitions.values()),
        commits_rollback=(target.timestamp,),
        partition_metadata=partitions,
        instants_rollback=(InstantInfo(commit_time=target.timestamp, action=target.action.value),),
    )


def _remove_target(writer: TimelineWriter, storage: Storage, planned: PlannedRollback) -> tuple[str, ...]:
    """Remove the rolled-back instant (or revert a table service to requested), then its markers
    and heartbeat."""
    target = planned.target
    timeline = writer.timeline()
    entry = timeline.entry(target.timestamp, target.action)
    removed: list[str] = []
    if entry is not None and planned.reverts_to_requested:
        if State.INFLIGHT in entry.state_files and State.COMPLETED not in entry.state_files:
            writer.revert_inflight_to_requested(target.with_state(State.INFLIGHT))
            removed.append(entry.state_files[State.INFLIGHT])
    elif entry is not None and State.COMPLETED not in entry.state_files:
        removed += writer.delete_instant(target, timeline)
    storage.delete_dir(f"{MARKERS_DIR}/{target.timestamp}")
    storage.delete(f"{HEARTBEAT_DIR}/{target.timestamp}")
    return tuple(removed)


def run_rollback(
    storage: Storage,
    config: TableConfig,
    planned: PlannedRollback,
    *,
    runner: TaskRunner = IN_PROCESS,
    clock: Clock = utc_now,
    fault: Fault = no_fault,
) -> RollbackOutcome:
    """Carry out ``planned``; returns the rollback instant and what it recorded."""
    writer = TimelineWriter(storage, config, clock)
    if planned.kind is RollbackKind.REMOVE_ROLLED_BACK_INSTANT:
        return RollbackOutcome(planned.rollback_instant, None, _remove_target(writer, storage, planned))
    started_ms = int(time.time() * 1000)
    inflight = _start(writer, planned, fault)
    context = RequestContext(
        storage, storage.uri(""), inflight.timestamp, planned.target.timestamp, config.version
    )
    requests = list(planned.plan.rollback_requests or ())
    results = runner.run(functools.partial(execute_request, context), requests)
    fault("after_deletes")
    metadata = _metadata(inflight, planned, results, started_ms)
    completed = writer.complete(inflight, payloads.encode_avro(metadata))
    fault("after_completed")
    removed = _remove_target(writer, storage, planned)
    return RollbackOutcome(completed, metadata, removed)
