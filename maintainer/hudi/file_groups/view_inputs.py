"""Facts the file-system view needs from instant payloads: replaced file groups, file groups
under pending compaction / log compaction / clustering, and savepointed files."""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import read_instant_file
from maintainer.hudi.table.snapshot import TableSnapshot
from maintainer.storage import Storage


def _read(storage: Storage, snapshot: TableSnapshot, instant: Instant, state: State) -> tuple[bytes, str]:
    path = snapshot.timeline.file_path(instant, state)
    return read_instant_file(storage, path), storage.uri(path)


def _replaced_file_groups(storage: Storage, snapshot: TableSnapshot) -> dict[tuple[str, str], str]:
    replaced: dict[tuple[str, str], str] = {}
    for instant in snapshot.timeline.completed():
        if instant.completed_action is not Action.REPLACE_COMMIT:
            continue
        data, where = _read(storage, snapshot, instant, State.COMPLETED)
        metadata = payloads.decode_replace_commit_metadata(data, where)
        for partition, file_ids in (metadata.partition_to_replace_file_ids or {}).items():
            for file_id in file_ids:
                replaced[(partition, file_id)] = instant.timestamp
    return replaced


def _compaction_operations(
    storage: Storage, snapshot: TableSnapshot, instants: Iterable[Instant], action: str
) -> dict[tuple[str, str], PendingOperation]:
    pending: dict[tuple[str, str], PendingOperation] = {}
    for instant in instants:
        data, where = _read(storage, snapshot, instant, State.REQUESTED)
        plan = payloads.decode_compaction_plan(data, where)
        for op in (plan.operations or ()) if plan else ():
            if op.file_id is None:
                continue
            key = (op.partition_path or "", op.file_id)
            pending[key] = PendingOperation(instant.timestamp, action, op.base_instant_time)
    return pending


def _clustering_operations(
    storage: Storage, snapshot: TableSnapshot
) -> dict[tuple[str, str], PendingOperation]:
    timeline = snapshot.timeline
    candidates = timeline.pending_clustering() + timeline.pending_replacecommits()
    pending: dict[tuple[str, str], PendingOperation] = {}
    for instant in candidates:
        data, where = _read(storage, snapshot, instant, State.REQUESTED)
        requested = payloads.decode_requested_replace_metadata(data, where)
        plan = requested.clustering_plan if requested else None
        for group in (plan.input_groups or ()) if plan else ():
            for item in group.slices or ():
                if item.file_id is None:
                    continue
                pending[(item.partition_path or "", item.file_id)] = PendingOperation(
                    instant.timestamp, "clustering", _slice_base_instant(item.data_file_path)
                )
    return pending


def _slice_base_instant(data_file_path: str | None) -> str | None:
    name = BaseFileName.parse(data_file_path.rsplit("/", 1)[-1]) if data_file_path else None
    return name.instant_time if name else None


def _savepointed_files(storage: Storage, snapshot: TableSnapshot) -> frozenset[str]:
    names: set[str] = set()
    for instant in snapshot.timeline.savepoints():
        data, where = _read(storage, snapshot, instant, State.COMPLETED)
        metadata = payloads.decode_savepoint_metadata(data, where)
        for partition in metadata.partition_metadata.values() if metadata else ():
            names.update(name.rsplit("/", 1)[-1] for name in partition.savepoint_data_file)
    return frozenset(names)


def load_view_inputs(storage: Storage, snapshot: TableSnapshot) -> ViewInputs:
    """Decode what the view needs from the table's instants (read-only)."""
    timeline = snapshot.timeline
    return ViewInputs(
        replaced_file_groups=_replaced_file_groups(storage, snapshot),
        pending_compaction=_compaction_operations(
            storage, snapshot, timeline.pending_compactions(), "compaction"
        ),
        pending_log_compaction=_compaction_operations(
            storage, snapshot, timeline.pending_log_compactions(), "logcompaction"
        ),
        pending_clustering=_clustering_operations(storage, snapshot),
        savepointed_files=_savepointed_files(storage, snapshot),
    )
