"""Which metadata-table log blocks a reader may use.

The metadata table is written before the data-table instant completes, so a reader keeps only
blocks whose instant is valid (``HoodieTableMetadataUtil.getValidInstantTimestamps``):

- every completed instant of the data table;
- every completed metadata deltacommit whose time is not pending on the data table (a data
  instant that failed after its metadata deltacommit completed is not valid), completed log
  compactions included (they complete as ``deltacommit``, which is what Hudi's
  ``isValidInstant`` checks);
- the instants rolled back by a completed data rollback or restore newer than the earliest
  valid instant (their blocks may still sit in a log file the rollback could not delete);
- the metadata table's own completed rollbacks and restores;
- the metadata table's bootstrap deltacommits (times starting ``00000000000000``).
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads.container import read_container
from maintainer.hudi.payloads.decode import decode_rollback_metadata, decode_rollback_plan
from maintainer.storage import Storage

SOLO_COMMIT_TIMESTAMP = "00000000000000"
"""Prefix of the metadata table's bootstrap instants (``00000000000000000``, ``...001``)."""


def valid_instant_times(
    data_storage: Storage, data_timeline: Timeline, metadata_timeline: Timeline
) -> frozenset[str]:
    """The instant times whose metadata log blocks a reader uses (see the module doc)."""
    pending = {i.timestamp for i in data_timeline.pending()}
    valid = {i.timestamp for i in data_timeline.completed()}
    valid.update(
        i.timestamp
        for i in metadata_timeline.completed()
        if i.completed_action is Action.DELTA_COMMIT and i.timestamp not in pending
    )
    earliest = min(valid) if valid else SOLO_COMMIT_TIMESTAMP
    for instant in data_timeline.completed():
        if instant.action in (Action.ROLLBACK, Action.RESTORE) and instant.timestamp > earliest:
            valid.update(rolled_back_times(data_storage, data_timeline, instant))
    valid.update(
        i.timestamp
        for i in metadata_timeline.completed()
        if i.action in (Action.ROLLBACK, Action.RESTORE)
        or (i.action is Action.DELTA_COMMIT and i.timestamp.startswith(SOLO_COMMIT_TIMESTAMP))
    )
    return frozenset(valid)


def rolled_back_times(storage: Storage, timeline: Timeline, instant: Instant) -> tuple[str, ...]:
    """The instants a completed rollback or restore rolled back (a rollback whose completed
    file is empty names its target in its plan, as Hudi reads it)."""
    path = timeline.file_path(instant)
    data = storage.read_bytes(path)
    if instant.action is Action.RESTORE:
        return _restored_times(data, storage.uri(path))
    metadata = decode_rollback_metadata(data, storage.uri(path))
    if metadata is not None:
        return metadata.commits_rollback
    requested = timeline.file_path(instant, State.REQUESTED)
    plan = decode_rollback_plan(storage.read_bytes(requested), storage.uri(requested))
    if plan is None or plan.instant_to_rollback is None:
        return ()
    return (plan.instant_to_rollback.commit_time,)


def _restored_times(data: bytes, where: str) -> tuple[str, ...]:
    if not data:
        return ()
    record = read_container(data, where)
    per_instant = record.get("hoodieRestoreMetadata")
    if not isinstance(per_instant, dict):
        raise CorruptFileError("a restore without hoodieRestoreMetadata", where=where)
    return tuple(commit for rollbacks in per_instant.values() for commit in _commits(rollbacks))


def _commits(rollbacks: Iterable[dict[str, object]]) -> tuple[str, ...]:
    found: list[str] = []
    for rollback in rollbacks:
        commits = rollback.get("commitsRollback")
        if isinstance(commits, list):
            found.extend(str(c) for c in commits)
    return tuple(found)
