"""Create and delete savepoints, as Hudi's savepoint action does.

Create at a completed commit T: ``<T>.savepoint.inflight`` (empty), then the completed
``savepoint`` holding HoodieSavepointMetadata: per partition, the file names of the latest file
slices as of T (table version 6: base files, log files only for slices without one, as Hudi 0.x
records them; version 8+: base and log files of each slice, as Hudi 1.x does). A leftover
inflight is finished. Delete: the savepoint's timeline files are removed.
"""

from __future__ import annotations

from maintainer.clock import Clock, utc_now
from maintainer.executors.faults import Fault, no_fault
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import SavepointMetadata, SavepointPartitionMetadata
from maintainer.hudi.table.state import TableState

DEFAULT_USER = "maintainer"


def _slice_names(file_slice: FileSlice, table_version: int) -> list[str]:
    if table_version >= 8 or file_slice.base_file is None:
        return [f.name for f in file_slice.files]
    return [file_slice.base_file.name]


def savepoint_metadata(
    table: TableState, instant_time: str, user: str, comments: str, savepointed_at_ms: int
) -> SavepointMetadata:
    """The files a savepoint at ``instant_time`` keeps: the latest slices as of that instant."""
    view = table.view_as_of(instant_time)
    version = table.snapshot.config.version
    partitions = {}
    for partition in view.partitions:
        names = sorted(n for s in view.latest_slices(partition) for n in _slice_names(s, version))
        if names:
            partitions[partition] = SavepointPartitionMetadata(
                partition_path=partition, savepoint_data_file=tuple(names)
            )
    return SavepointMetadata(
        savepointed_by=user,
        savepointed_at=savepointed_at_ms,
        comments=comments,
        partition_metadata=partitions,
    )


def create_savepoint(
    table: TableState,
    instant_time: str,
    *,
    user: str = DEFAULT_USER,
    comments: str = "",
    clock: Clock = utc_now,
    fault: Fault = no_fault,
) -> Instant:
    """Savepoint the completed commit ``instant_time`` (finishing an interrupted attempt)."""
    writer = TimelineWriter(table.storage, table.snapshot.config, clock)
    entry = writer.timeline().entry(instant_time, Action.SAVEPOINT)
    if entry is not None and State.COMPLETED in entry.state_files:
        return entry.instant
    if entry is None:
        writer.create_inflight(Action.SAVEPOINT, b"", instant_time=instant_time)
        fault("after_inflight")
    with writer.heartbeat(instant_time):
        metadata = savepoint_metadata(table, instant_time, user, comments, int(clock().timestamp() * 1000))
        inflight = Instant(instant_time, Action.SAVEPOINT, State.INFLIGHT)
        return writer.complete(inflight, payloads.encode_avro(metadata))


def delete_savepoint(table: TableState, instant_time: str) -> list[str]:
    """Remove the savepoint's timeline files (inflight, then completed); the removed names."""
    writer = TimelineWriter(table.storage, table.snapshot.config)
    return writer.delete_instant(Instant(instant_time, Action.SAVEPOINT, State.COMPLETED))
