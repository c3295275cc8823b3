"""Keep the metadata table in step with one data-table action, as Hudi's table services do:
the metadata deltacommit with the action's own instant time T is written and completed
*before* the data-table instant T completes (``BaseActionExecutor.writeTableMetadata``).

A retry finds T already on the metadata timeline when an earlier attempt crashed: pending (the
metadata write itself was cut short) or completed while the data instant is still pending (the
crash came between the two completions). Readers ignore both (:mod:`.instants`: a metadata
instant counts only once its data instant completes), so, as Hudi's ``commitInternal`` rolls
the metadata instant back before writing it again, the retry removes T's log files and state
files from the metadata table and writes T afresh: the records are those of the action being
completed now.
"""

from __future__ import annotations

from collections.abc import Callable

from maintainer.clock import Clock, utc_now
from maintainer.errors import TimelineWriteError
from maintainer.hudi.hfile import HFileStyle, read_hfile
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.writer import MetadataUpdate, WriteSettings, write_deltacommit
from maintainer.hudi.table.state import read_table_state
from maintainer.storage import Storage

UpdateBuilder = Callable[[MetadataTable], MetadataUpdate]
WRITE_TASK = "0-0"
"""The ``<stage>-<attempt>`` part of the metadata log files' write tokens."""


def open_for_sync(data_storage: Storage) -> MetadataTable | None:
    """The metadata table as it is now (the data table's partitions are not listed)."""
    return open_metadata_table(read_table_state(data_storage, partitions=(), verify=False))


def commit_to_metadata_table(
    data_storage: Storage, instant_time: str, build: UpdateBuilder, clock: Clock = utc_now
) -> Instant | None:
    """Write and complete the metadata deltacommit of the data instant ``instant_time`` (call
    it right before the data instant completes). None where the table has no metadata table."""
    mdt = open_for_sync(data_storage)
    if mdt is None:
        return None
    if reset_metadata_instant(mdt, instant_time):
        mdt = open_for_sync(data_storage)
        assert mdt is not None
    update = build(mdt)
    if update.instant_time != instant_time:
        raise TimelineWriteError(
            f"metadata update for {update.instant_time} written as {instant_time}", where=mdt.storage.base_uri
        )
    settings = WriteSettings(
        style=hfile_style(mdt),
        schemas=metadata_schemas(mdt.storage, mdt.state.snapshot.timeline),
        task=WRITE_TASK,
        created_ms=int(clock().timestamp() * 1000),
    )
    return write_deltacommit(mdt, update, settings, clock)


def metadata_log_files(mdt: MetadataTable, instant_time: str) -> list[tuple[str, str]]:
    """(metadata partition, path) of every log file the deltacommit ``instant_time`` wrote."""
    found = []
    for partition in mdt.partitions:
        for info in mdt.storage.list_dir(partition.name):
            if not info.is_dir and f"_{instant_time}.log." in info.name:
                found.append((partition.name, f"{partition.name}/{info.name}"))
    return sorted(found)


def reset_metadata_instant(mdt: MetadataTable, instant_time: str) -> bool:
    """Remove what an earlier attempt wrote for ``instant_time`` (log files first, then the
    completed, inflight and requested files); True where there was something."""
    timeline = mdt.state.snapshot.timeline
    entry = timeline.entry(instant_time, Action.DELTA_COMMIT)
    if entry is None:
        return False
    for _, path in metadata_log_files(mdt, instant_time):
        mdt.storage.delete(path)
    for state in sorted(entry.state_files, key=lambda s: -s.rank):
        mdt.storage.delete(f"{timeline.directory}/{entry.state_files[state]}")
    return True


def hfile_style(mdt: MetadataTable) -> HFileStyle:
    """The HFile writer of the Hudi version that wrote the metadata table: that of its newest
    HFile (a table of version 8 may have been written by Hudi 1.0 or 1.1), else the version's."""
    bases = [s.base_file for g in mdt.file_groups("files") for s in g.slices if s.base_file is not None]
    newest = max(bases, key=lambda f: f.instant_time, default=None)
    if newest is not None:
        return read_hfile(mdt.storage.read_bytes(newest.path), mdt.storage.uri(newest.path)).style
    return HFileStyle.HUDI if mdt.state.snapshot.config.version >= 9 else HFileStyle.HBASE
