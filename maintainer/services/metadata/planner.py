"""The metadata node's planner (pure: reads the state passed in): the settings Hudi's metadata
write config derives from the table's own, and what a clean, a compaction and an archival of the
metadata table would do now. Apply calls the same functions again on the table as it is then."""

from __future__ import annotations

from datetime import datetime

from maintainer.executors.metadata import CompactionDecision
from maintainer.hudi.instants.instant import Instant, State, format_instant_time, wall_clock_in_timezone
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata import compaction_plan as mcp
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.payloads.decode import decode_compaction_plan
from maintainer.project.models import TableSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.metadata.archival import (
    MetadataArchivalPlan,
    MetadataArchivalSettings,
    plan_metadata_archival,
)
from maintainer.services.metadata.clean import MetadataCleanPlan, MetadataCleanSettings, plan_metadata_clean
from maintainer.services.metadata.settings import MetadataSpec


def settings_of(spec: TableSpec) -> MetadataSpec:
    return spec.settings_of(MetadataSpec) or MetadataSpec()


def clean_settings(spec: TableSpec) -> MetadataCleanSettings:
    return MetadataCleanSettings.derived_from(spec.settings_of(CleanSpec) or CleanSpec())


def archival_settings(spec: TableSpec) -> MetadataArchivalSettings:
    return MetadataArchivalSettings.derived_from(
        spec.settings_of(ArchiveSpec) or ArchiveSpec(), settings_of(spec).compact_max_delta_commits
    )


def plan_clean(mdt: MetadataTable, spec: TableSpec, now: datetime) -> MetadataCleanPlan:
    return plan_metadata_clean(mdt.state, clean_settings(spec), now)


def plan_archival(mdt: MetadataTable, data_timeline: Timeline, spec: TableSpec) -> MetadataArchivalPlan:
    return plan_metadata_archival(mdt.state, data_timeline, archival_settings(spec))


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
