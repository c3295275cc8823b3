"""The rollback planner: a pure function of the table's state, the rollback settings and now.

Rules (HUDI.md §5, Hudi's failed-writes cleaning and rollback executors):
* a pending rollback is finished first, with its own instant and plan (a failed rollback is
  retried with the same instant, never replaced by a new one);
* a completed rollback whose target write is still on the timeline (a crash between the two)
  only has the target's instant files removed (not for a compaction or clustering, which is
  retried under the same instant: its inflight attempt is always rolled back afresh);
* a failed write is a pending commit, deltacommit or replacecommit that is not a clustering,
  whose writer is gone: with ``eager`` every one older than ``min_age``; with ``lazy`` only those
  whose heartbeat (``.hoodie/.heartbeat/<instant>``) expired too (no heartbeat file counts as
  expired);
* a write younger than ``min_age``, or (lazy) with a live heartbeat, is never touched;
* a pending table service (compaction, log compaction, clustering), requested or inflight and
  however old, is never rolled back here, nor is a pending rollback of a compaction or
  clustering finished: only the job that executes it rolls back its failed attempt, right
  before running it again (Hudi's ``BaseHoodieTableServiceClient.getInstantsToRollback`` reads
  ``getInflightTimelineExcludeCompactionAndClustering``, and ``getPendingRollbackInfos``
  ignores compaction and clustering targets), so an async compactor still executing it is
  never undercut; the plan says why each one is left;
* newest failed instant first.
"""

from __future__ import annotations

from datetime import datetime

from maintainer.executors.rollback.model import PlannedRollback, RollbackKind
from maintainer.hudi.instants.instant import (
    TABLE_SERVICE_ACTIONS,
    WRITE_ACTIONS,
    Action,
    Instant,
    State,
    instant_time_to_epoch_ms,
    is_instant_time,
)
from maintainer.services.rollback.model import RollbackInputs, RollbackPlanResult, SkippedWrite
from maintainer.services.rollback.requests import rollback_plan
from maintainer.services.rollback.settings import RollbackSpec


def _epoch_ms(now: datetime) -> int:
    return int(now.timestamp() * 1000)


def _is_table_service(inputs: RollbackInputs, instant: Instant) -> bool:
    """A compaction, log compaction or clustering (on layout 1 a replacecommit with a clustering
    plan): Hudi's failed-writes rollback never takes these."""
    return instant.action in TABLE_SERVICE_ACTIONS or (
        instant.action is Action.REPLACE_COMMIT and instant.timestamp in inputs.clustering_replacecommits
    )


def _is_write(inputs: RollbackInputs, instant: Instant) -> bool:
    return instant.action in WRITE_ACTIONS and not _is_table_service(inputs, instant)


def _candidates(inputs: RollbackInputs, busy: set[str]) -> list[Instant]:
    """Pending writes (commit, deltacommit, non-clustering replacecommit) not already handled by
    a rollback: Hudi's ``getInflightTimelineExcludeCompactionAndClustering``."""
    return [i for i in inputs.timeline.pending() if _is_write(inputs, i) and i.timestamp not in busy]


def _service_name(instant: Instant) -> str:
    return "clustering replacecommit" if instant.action is Action.REPLACE_COMMIT else instant.action.value


def _left_to_executor(inputs: RollbackInputs) -> list[SkippedWrite]:
    """Every pending table service, with why the rollback service leaves it."""
    skipped = []
    for instant in sorted(inputs.timeline.pending(), key=lambda i: i.timestamp, reverse=True):
        if not _is_table_service(inputs, instant):
            continue
        name = _service_name(instant)
        reason = (
            f"{instant.state.value.lower()} {name} is a table service, not a failed write: only the "
            f"job that executes it rolls back a failed attempt, right before running it again "
            f"(an async {name} may be executing it now)"
        )
        skipped.append(SkippedWrite(instant, reason))
    return skipped


def _age_ms(inputs: RollbackInputs, instant: Instant, now_ms: int) -> int | None:
    if not is_instant_time(instant.timestamp):
        return None
    return now_ms - instant_time_to_epoch_ms(instant.timestamp, inputs.timezone)


def _why_alive(inputs: RollbackInputs, instant: Instant, settings: RollbackSpec, now_ms: int) -> str | None:
    """Why the writer of ``instant`` may still be running (None: it is gone)."""
    age = _age_ms(inputs, instant, now_ms)
    min_age_ms = int(settings.min_age.total_seconds() * 1000)
    if age is not None and age < min_age_ms:
        return (
            f"started {age // 1000}s ago, younger than min_age ({settings.min_age}): its writer may still run"
        )
    if settings.failed_writes_policy == "eager":
        return None
    beat = inputs.heartbeats.get(instant.timestamp)
    if beat is not None and now_ms - beat <= settings.heartbeat_expiry_ms:
        return (
            f"its heartbeat is live (last beat {(now_ms - beat) // 1000}s ago, expires after "
            f"{settings.heartbeat_expiry_ms // 1000}s): its writer is running (lazy policy)"
        )
    return None


def _why_failed(inputs: RollbackInputs, settings: RollbackSpec) -> str:
    if settings.failed_writes_policy == "eager":
        return f"pending and older than min_age ({settings.min_age}) (eager policy)"
    return f"pending, older than min_age ({settings.min_age}), and its heartbeat expired (lazy policy)"


def _of_compaction_or_clustering(inputs: RollbackInputs, target: Instant) -> bool:
    """Hudi's ``getPendingRollbackInfos(ignoreCompactionAndClusteringInstants=true)``: a pending
    rollback of a compaction or clustering belongs to the job that executes it."""
    return target.action in (Action.COMPACTION, Action.CLUSTERING) or (
        target.action is Action.REPLACE_COMMIT and target.timestamp in inputs.clustering_replacecommits
    )


def _pending_rollbacks(inputs: RollbackInputs) -> tuple[list[PlannedRollback], list[SkippedWrite]]:
    result: list[PlannedRollback] = []
    skipped: list[SkippedWrite] = []
    for rollback in sorted(inputs.timeline.pending_rollbacks(), key=lambda i: i.timestamp, reverse=True):
        plan = inputs.pending_rollback_plans.get(rollback.timestamp)
        if plan is None or plan.instant_to_rollback is None:
            continue
        info = plan.instant_to_rollback
        target = _timeline_instant(inputs, info.commit_time, info.action)
        if _of_compaction_or_clustering(inputs, target):
            why = (
                f"pending rollback of the {info.action} {info.commit_time}: the job that executes "
                f"the {info.action} finishes it before running it again"
            )
            skipped.append(SkippedWrite(rollback, why))
            continue
        reason = f"rollback {rollback.timestamp} of {info.commit_time} was started and did not finish"
        result.append(
            PlannedRollback(RollbackKind.FINISH_PENDING_ROLLBACK, target, reason, plan, rollback, "plan")
        )
    return result, skipped


def _timeline_instant(inputs: RollbackInputs, timestamp: str, action: str) -> Instant:
    for instant in inputs.timeline.instants:
        if instant.timestamp == timestamp and instant.action.value == action:
            return instant
    return Instant(timestamp, Action(action), State.INFLIGHT)


def _leftover_targets(inputs: RollbackInputs, busy: set[str]) -> list[PlannedRollback]:
    result = []
    for instant in inputs.timeline.pending():
        rollback_time = inputs.completed_rollback_targets.get(instant.timestamp)
        if rollback_time is None or instant.timestamp in busy:
            continue
        if _is_table_service(inputs, instant):
            continue  # left to the job that executes it (see _left_to_executor)
        rollback = inputs.timeline.entry(rollback_time, Action.ROLLBACK)
        reason = f"rolled back by the completed rollback {rollback_time}; its instant files remain"
        plan, _ = rollback_plan(inputs, instant)
        result.append(
            PlannedRollback(
                RollbackKind.REMOVE_ROLLED_BACK_INSTANT,
                instant,
                reason,
                plan,
                rollback.instant if rollback else None,
                "timeline",
            )
        )
    return result


def _failed(
    inputs: RollbackInputs, settings: RollbackSpec, now_ms: int, busy: set[str]
) -> tuple[list[PlannedRollback], list[SkippedWrite]]:
    planned: list[PlannedRollback] = []
    skipped: list[SkippedWrite] = []
    for instant in sorted(_candidates(inputs, busy), key=lambda i: i.timestamp, reverse=True):
        alive = _why_alive(inputs, instant, settings, now_ms)
        if alive is not None:
            skipped.append(SkippedWrite(instant, alive))
            continue
        plan, source = rollback_plan(inputs, instant)
        reason = "failed write: " + _why_failed(inputs, settings)
        planned.append(PlannedRollback(RollbackKind.ROLLBACK, instant, reason, plan, None, source))
    return planned, skipped


def plan_rollback(inputs: RollbackInputs, settings: RollbackSpec, now: datetime) -> RollbackPlanResult:
    """Everything rollback would do, and why; pending rollbacks first, then newest failed first."""
    pending, services = _pending_rollbacks(inputs)
    busy = {p.target.timestamp for p in pending}
    leftovers = _leftover_targets(inputs, busy)
    busy |= {p.target.timestamp for p in leftovers}
    failed, skipped = _failed(inputs, settings, _epoch_ms(now), busy)
    left = services + _left_to_executor(inputs) + skipped
    return RollbackPlanResult(tuple(pending + leftovers + failed), tuple(left))
