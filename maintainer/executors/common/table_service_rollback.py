"""Roll back the failed attempt of a table service (an inflight compaction) with a real
``rollback`` instant, as Hudi's ``HoodieTable.rollbackInflightCompaction`` does.

* A pending rollback of the instant (a crash in an earlier attempt of this) is finished with
  its own rollback instant and plan (Hudi's ``getPendingRollbackInstantFunc``);
* else a new rollback is planned: the base files the attempt wrote, from its CREATE/MERGE
  markers, or (no markers) by listing the service's partitions for base files named with its
  instant. Log files are never deleted: on table version 6 a log file named with a pending
  compaction's instant belongs to the writers that appended after it was scheduled;
* the rollback runs through :func:`roll_back_instant` (requested -> inflight -> deletes ->
  completed ``rollback`` naming the instant and its action), which then reverts the instant to
  requested and deletes its markers (the instant itself is kept, Hudi's ``deleteInstants=false``).
  On a table whose metadata table is kept in sync, the caller passes the step that rolls back
  the instant's metadata deltacommit right before the rollback completes
  (``metadata_sync.metadata_rollback_step``), as for any other rollback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.executors.common.markers import read_markers
from maintainer.executors.common.rollback_instant import InstantRollback, RolledBackInstant, roll_back_instant
from maintainer.executors.common.rollback_requests import grouped_deletes, relative_path
from maintainer.executors.faults import Fault, no_fault
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.filenames import BaseFileName, MarkerType
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import InstantInfo, RollbackPlan
from maintainer.hudi.table.snapshot import load_timeline
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner


@dataclass(frozen=True, slots=True)
class PendingRollback:
    """A rollback that was started and not completed, and its requested plan."""

    instant: Instant
    plan: RollbackPlan


def pending_rollback_of(storage: Storage, timeline: Timeline, target_time: str) -> PendingRollback | None:
    """The pending rollback whose plan rolls back ``target_time`` (None: there is none)."""
    for instant in timeline.pending_rollbacks():
        entry = timeline.entry(instant.timestamp, instant.action)
        if entry is None or State.REQUESTED not in entry.state_files:
            continue
        path = timeline.file_path(instant, State.REQUESTED)
        plan = payloads.decode_rollback_plan(storage.read_bytes(path), storage.uri(path))
        target = plan.instant_to_rollback if plan is not None else None
        if plan is not None and target is not None and target.commit_time == target_time:
            return PendingRollback(instant, plan)
    return None


def _is_own_base_file(name: str, instant_time: str) -> bool:
    parsed = BaseFileName.parse(name)
    return parsed is not None and parsed.instant_time == instant_time


def _marked_base_files(storage: Storage, instant_time: str) -> list[tuple[str, str]]:
    """(partition, path) of the base files the instant's CREATE/MERGE markers name."""
    return [
        (marker.partition, marker.path)
        for marker in read_markers(storage, instant_time)
        if marker.marker_type is not MarkerType.APPEND and _is_own_base_file(marker.file_name, instant_time)
    ]


def _listed_base_files(
    storage: Storage, instant_time: str, partitions: Iterable[str]
) -> list[tuple[str, str]]:
    """(partition, path) of the base files named with the instant in ``partitions``."""
    found = []
    for partition in sorted(set(partitions)):
        for info in storage.list_dir(partition):
            if not info.is_dir and _is_own_base_file(info.name, instant_time):
                found.append((partition, f"{partition}/{info.name}" if partition else info.name))
    return found


def table_service_rollback_plan(
    storage: Storage, target: Instant, partitions: Iterable[str]
) -> tuple[RollbackPlan, str]:
    """The HoodieRollbackPlan deleting the output of ``target``'s attempt, and its source
    (``markers`` or ``listing``)."""
    files, source = _marked_base_files(storage, target.timestamp), "markers"
    if not files:
        files, source = _listed_base_files(storage, target.timestamp, partitions), "listing"
    info = InstantInfo(commit_time=target.timestamp, action=target.action.value)
    requests = grouped_deletes(storage.uri(""), files)
    return RollbackPlan(instant_to_rollback=info, rollback_requests=tuple(requests)), source


def planned_table_service_rollback(
    storage: Storage, timeline: Timeline, target: Instant, partitions: Iterable[str]
) -> InstantRollback | None:
    """What rolling back ``target`` takes: finish a pending rollback of it, else (inflight) a
    new one; None when ``target`` is requested and no rollback of it is pending."""
    pending = pending_rollback_of(storage, timeline, target.timestamp)
    if pending is not None:
        return InstantRollback(target, pending.plan, pending.instant, reverts_to_requested=True)
    if target.state is not State.INFLIGHT:
        return None
    plan, _ = table_service_rollback_plan(storage, target, partitions)
    return InstantRollback(target, plan, reverts_to_requested=True)


def rollback_table_service(
    storage: Storage,
    config: TableConfig,
    target: Instant,
    partitions: Iterable[str],
    *,
    runner: TaskRunner = IN_PROCESS,
    clock: Clock = utc_now,
    fault: Fault = no_fault,
    before_complete: Callable[[Instant], object] | None = None,
) -> RolledBackInstant | None:
    """Roll back ``target``'s failed attempt and revert it to requested (None: nothing to do).
    ``before_complete`` runs right before the rollback completes (the metadata table's sync)."""
    planned = planned_table_service_rollback(storage, load_timeline(storage, config), target, partitions)
    if planned is None:
        return None
    return roll_back_instant(
        storage, config, planned, runner=runner, clock=clock, fault=fault, before_complete=before_complete
    )


def deleted_files(storage: Storage, outcome: RolledBackInstant) -> tuple[str, ...]:
    """The table-relative paths a rollback deleted (sorted)."""
    table_uri = storage.uri("")
    partitions = outcome.metadata.partition_metadata or {}
    return tuple(
        sorted(
            relative_path(table_uri, path) or path
            for partition in partitions.values()
            for path in partition.success_delete_files
        )
    )
