"""The archived form of instants: v6 ``HoodieArchivedMetaEntry`` records (one per instant state
file) and v8 ``HoodieLSMTimelineInstant`` rows (one per instant), as Hudi's
``MetadataConversionUtils`` builds them.

v6, per state file (``actionType`` = the file's action, so a completed compaction is a
``commit``): clean -> cleaner plan (pending) / clean metadata (completed); commit and deltacommit
-> commit metadata (JSON converted to the Avro form; an empty file reads as empty metadata);
replacecommit -> requested replace metadata / inflight commit metadata / replace commit metadata;
rollback and savepoint -> their metadata when completed; compaction and log compaction -> the
plan (requested); an empty completed file -> no payload.

v8, per instant: ``metadata`` = the completed file's bytes, ``plan`` = the clean plan, the
compaction plan, or the replacecommit/clustering requested (or non-empty inflight) bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action, Instant, State, parse_instant_file_name
from maintainer.hudi.instants.timeline import TimelineEntry
from maintainer.hudi.payloads import ArchivedMetaEntry, LSMTimelineInstant

ReadFile = Callable[[str], tuple[bytes, str]]
"""Instant file name -> (its bytes, where it is, for messages)."""

_STATE_ORDER = (State.REQUESTED, State.INFLIGHT, State.COMPLETED)


def _commit_like(
    entry: ArchivedMetaEntry, action: Action, state: State, data: bytes, where: str
) -> ArchivedMetaEntry:
    if action is Action.REPLACE_COMMIT:
        if state is State.COMPLETED:
            return replace(
                entry, replace_commit_metadata=payloads.decode_replace_commit_metadata(data, where)
            )
        if state is State.INFLIGHT:
            inflight = payloads.decode_commit_metadata(data, where) if data.strip() else None
            return replace(entry, inflight_replace_metadata=inflight)
        return replace(
            entry, requested_replace_metadata=payloads.decode_requested_replace_metadata(data, where)
        )
    return replace(entry, commit_metadata=payloads.decode_commit_metadata(data, where))


def _with_payload(
    entry: ArchivedMetaEntry, action: Action, state: State, data: bytes, where: str
) -> ArchivedMetaEntry:
    completed = state is State.COMPLETED
    if completed and not data:
        return entry
    if action is Action.CLEAN:
        if completed:
            return replace(entry, clean_metadata=payloads.decode_clean_metadata(data, where))
        return replace(entry, cleaner_plan=payloads.decode_cleaner_plan(data, where))
    if action in (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT):
        return _commit_like(entry, action, state, data, where)
    if action is Action.ROLLBACK and completed:
        return replace(entry, rollback_metadata=payloads.decode_rollback_metadata(data, where))
    if action is Action.SAVEPOINT and completed:
        return replace(entry, savepoint_metadata=payloads.decode_savepoint_metadata(data, where))
    if action in (Action.COMPACTION, Action.LOG_COMPACTION) and state is State.REQUESTED:
        return replace(entry, compaction_plan=payloads.decode_compaction_plan(data, where))
    return entry


def archived_meta_entries(entry: TimelineEntry, read: ReadFile) -> list[ArchivedMetaEntry]:
    """One record per state file of the instant, requested first."""
    records = []
    for state in _STATE_ORDER:
        name = entry.state_files.get(state)
        if name is None:
            continue
        parsed = parse_instant_file_name(name)
        action = parsed.action if parsed is not None else entry.instant.action
        data, where = read(name)
        base = ArchivedMetaEntry(
            commit_time=entry.timestamp, action_type=action.value, action_state=state.value
        )
        records.append(_with_payload(base, action, state, data, where))
    return records


_PLANNED_ACTIONS = frozenset(
    {Action.CLEAN, Action.COMPACTION, Action.LOG_COMPACTION, Action.REPLACE_COMMIT, Action.CLUSTERING}
)


def _plan_bytes(entry: TimelineEntry, read: ReadFile) -> bytes | None:
    action = entry.instant.action
    files: Mapping[State, str] = entry.state_files
    plan: bytes | None = None
    if action in _PLANNED_ACTIONS and State.REQUESTED in files:
        plan = read(files[State.REQUESTED])[0] or None
    if action in (Action.REPLACE_COMMIT, Action.CLUSTERING) and State.INFLIGHT in files:
        plan = read(files[State.INFLIGHT])[0] or plan
    return plan


def lsm_timeline_instant(entry: TimelineEntry, read: ReadFile) -> LSMTimelineInstant:
    """The LSM row of a completed instant."""
    instant: Instant = entry.instant
    completed = entry.state_files.get(State.COMPLETED)
    metadata = read(completed)[0] if completed is not None else None
    return LSMTimelineInstant(
        instant_time=instant.timestamp,
        completion_time=instant.completion_time,
        action=instant.completed_action.value,
        metadata=metadata or None,
        plan=_plan_bytes(entry, read),
    )
