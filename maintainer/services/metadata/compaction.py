"""The metadata node's compaction: what the plan says about it, and running it at apply.

Apply re-derives everything from the metadata table as it is then (a pending compaction is
finished first, as Hudi's ``runPendingTableServicesOperations`` does; otherwise the trigger is
evaluated again and a compaction is scheduled with a new instant), so a compaction is done only
when the plan asked for one and the metadata table still needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from maintainer.clock import Clock, utc_now
from maintainer.hudi.instant import Action, Instant, State, format_instant_time, wall_clock_in_timezone
from maintainer.hudi.metadata import compaction as mc
from maintainer.hudi.metadata import compaction_plan as mcp
from maintainer.hudi.metadata.commit import hfile_style
from maintainer.hudi.metadata.schema import metadata_schemas
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.payloads.decode import decode_compaction_plan
from maintainer.hudi.timeline import Timeline
from maintainer.plan.model import METADATA_TABLE_PATH, CompactMetadataTable


@dataclass(frozen=True)
class CompactionDecision:
    """What a compaction of the metadata table would do now."""

    trigger: mcp.CompactionTrigger
    instant: str | None
    """The instant to compact at (pending or new); None: nothing to do."""
    pending: bool
    operations: tuple[mcp.FileGroupCompaction, ...]
    reason: str


def _pending_operations(mdt: MetadataTable, pending: Instant) -> tuple[mcp.FileGroupCompaction, ...]:
    timeline = mdt.state.snapshot.timeline
    path = timeline.file_path(pending, State.REQUESTED)
    where = mdt.storage.uri(path)
    plan = decode_compaction_plan(mdt.storage.read_bytes(path), where)
    return mcp.operations_of_plan(mdt.state, plan, where) if plan is not None else ()


def decide_compaction(
    mdt: MetadataTable, data_timeline: Timeline, now: datetime, max_delta_commits: int
) -> CompactionDecision:
    timeline = mdt.state.snapshot.timeline
    trigger = mcp.evaluate_trigger(timeline, max_delta_commits)
    pending = timeline.pending_compactions()
    if pending:
        first = pending[0]
        reason = (
            f"the metadata table's compaction {first.timestamp} is pending: it is finished first, "
            "as Hudi does"
        )
        return CompactionDecision(trigger, first.timestamp, True, _pending_operations(mdt, first), reason)
    if not trigger.fires:
        return CompactionDecision(trigger, None, False, (), trigger.reason)
    issued = format_instant_time(wall_clock_in_timezone(now, mdt.state.snapshot.config.timeline_timezone))
    instant = mcp.compaction_instant_time(data_timeline, timeline, issued)
    if any(i.timestamp == instant for i in timeline.completed()):
        reason = f"a compaction at {instant} is already completed ({trigger.reason})"
        return CompactionDecision(trigger, None, False, (), reason)
    operations = mcp.compaction_operations(mdt.state, instant)
    if not operations:
        return CompactionDecision(
            trigger, None, False, (), f"{trigger.reason}, but no file group has log files to compact"
        )
    return CompactionDecision(trigger, instant, False, operations, trigger.reason)


def compaction_action(decision: CompactionDecision) -> CompactMetadataTable | None:
    if decision.instant is None:
        return None
    logs = [log for op in decision.operations for log in op.log_files]
    return CompactMetadataTable(
        target=METADATA_TABLE_PATH,
        reason=decision.reason,
        instant=decision.instant,
        pending=decision.pending,
        file_groups=len(decision.operations),
        log_files=len(logs),
        log_bytes=sum(log.size for log in logs),
    )


def run_compaction(
    mdt: MetadataTable,
    decision: CompactionDecision,
    clock: Clock = utc_now,
    fault: Callable[[str], None] | None = None,
) -> mc.MetadataCompaction | None:
    """Carry out ``decision`` (taken on ``mdt`` as read now); None when it has nothing to do."""
    if decision.instant is None:
        return None
    schemas = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline)
    created = int(clock().timestamp() * 1000)
    settings = mc.base_file_settings(mdt, hfile_style(mdt), schemas.block_schema, created)
    if decision.pending:
        entry = mdt.state.snapshot.timeline.entry(decision.instant, Action.COMPACTION)
        assert entry is not None
        requested = entry.instant
    else:
        scheduled = mc.schedule_compaction(mdt, decision.instant, clock)
        if scheduled is None:
            return None
        requested = scheduled
        if fault is not None:
            fault("metadata_after_requested")
    return mc.execute_compaction(
        mdt, requested, settings, schemas.commit_schema, clock, fault, decision.pending
    )
