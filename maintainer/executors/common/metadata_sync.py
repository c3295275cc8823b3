"""``metadata_table: sync`` in the services: what a node tells the reviewer it writes into the
metadata table, and the write itself, right before the node's data instant completes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow.parquet as pq

from maintainer.artifact.model import SyncMetadataTable
from maintainer.clock import Clock, utc_now
from maintainer.executors.common.keys import record_keys
from maintainer.executors.common.rollback_instant import (
    InstantRollback,
    RolledBackInstant,
    remove_target,
    roll_back_instant,
)
from maintainer.executors.common.rollback_requests import grouped_deletes
from maintainer.executors.common.table_service_rollback import pending_rollback_of
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.metadata.commit import commit_to_metadata_table, metadata_log_files, open_for_sync
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.updates import (
    MovedKeys,
    TableView,
    clean_update,
    clustering_update,
    compaction_update,
    needs_partition_stats,
    partition_stats_prefixes,
    table_indexes,
)
from maintainer.hudi.metadata.updates.build import instant_epoch_millis
from maintainer.hudi.metadata.updates.clean import PARTITION_RECORD_DELETED_FROM_VERSION
from maintainer.hudi.metadata.updates.commit import RECORD_INDEX
from maintainer.hudi.metadata.updates.indexes import BLOOM_FILTERS, COLUMN_STATS, PARTITION_STATS
from maintainer.hudi.metadata.updates.slices import latest_files_after
from maintainer.hudi.metadata.writer import STREAMING_FROM_VERSION, MetadataUpdate
from maintainer.hudi.payloads import InstantInfo, RollbackPlan
from maintainer.hudi.payloads.clean import CleanMetadata
from maintainer.hudi.payloads.commit import CommitMetadata
from maintainer.hudi.records.merge import RECORD_KEY_COLUMN, MergeRules
from maintainer.hudi.table.schema import latest_avro_schema
from maintainer.hudi.table.snapshot import load_config
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.storage import Storage

CLEAN_UPDATES = (FILES, COLUMN_STATS, BLOOM_FILTERS)
"""The metadata partitions a clean's sync writes records into (where the table has them)."""
COMPACTION_UPDATES = (FILES, COLUMN_STATS, PARTITION_STATS, BLOOM_FILTERS)
"""The metadata partitions a compaction's sync writes records into (where the table has them)."""


def nothing_written(what: str) -> SyncMetadataTable:
    """The action of a node Hudi writes nothing into the metadata table for (savepoints)."""
    return SyncMetadataTable(
        reason=f"nothing: Hudi writes nothing into the metadata table for {what}, which stays in sync",
        partitions=(),
    )


def metadata_rollback(mdt: MetadataTable, target_time: str, rollback_time: str) -> InstantRollback | None:
    """The rollback of the metadata deltacommit ``target_time`` with the data rollback's time
    (``HoodieBackedTableMetadataWriter.update(HoodieRollbackMetadata)``): its log files deleted,
    the deltacommit removed, completed or not. None when the metadata table has no such
    deltacommit (the failed write never reached it, or an earlier attempt finished)."""
    timeline = mdt.state.snapshot.timeline
    pending = pending_rollback_of(mdt.storage, timeline, target_time)
    entry = timeline.entry(target_time, Action.DELTA_COMMIT)
    if entry is None and pending is None:
        return None
    state = max(entry.state_files, key=lambda s: s.rank) if entry is not None else State.REQUESTED
    target = Instant(target_time, Action.DELTA_COMMIT, state)
    if pending is not None:
        return InstantRollback(target, pending.plan, pending.instant, removes_completed=True)
    requests = grouped_deletes(mdt.storage.uri(""), metadata_log_files(mdt, target_time))
    plan = RollbackPlan(
        instant_to_rollback=InstantInfo(commit_time=target_time, action=Action.DELTA_COMMIT.value),
        rollback_requests=tuple(requests),
    )
    return InstantRollback(target, plan, instant_time=rollback_time, removes_completed=True)


def rollback_in_metadata_table(
    data_storage: Storage, target_time: str, rollback_time: str, clock: Clock = utc_now
) -> RolledBackInstant | None:
    """Roll back the metadata deltacommit of the data instant ``target_time`` (call it right
    before the data rollback ``rollback_time`` completes)."""
    mdt = open_for_sync(data_storage)
    if mdt is None:
        return None
    rollback = metadata_rollback(mdt, target_time, rollback_time)
    if rollback is None:
        return None
    config = mdt.state.snapshot.config
    done = mdt.state.snapshot.timeline.entry(rollback_time, Action.ROLLBACK)
    if done is not None and State.COMPLETED in done.state_files:  # crashed before removing the target
        remove_target(TimelineWriter(mdt.storage, config, clock), rollback.target, False, True)
        return None
    return roll_back_instant(mdt.storage, config, rollback, clock=clock)


def metadata_rollback_step(
    data_storage: Storage, target_time: str, clock: Clock = utc_now
) -> Callable[[Instant], object]:
    """The ``before_complete`` step of every data rollback of ``target_time`` on a synced
    table (the rollback service's, and a table service's retry of a failed attempt): roll
    back its metadata deltacommit with the inflight rollback's instant time, as Hudi's
    ``BaseRollbackActionExecutor.finishRollback`` does. A completed data rollback makes its
    target valid to readers, so skipping it would list the files it deleted."""

    def step(rollback: Instant) -> object:
        return rollback_in_metadata_table(data_storage, target_time, rollback.timestamp, clock)

    return step


def rollback_writes(mdt: MetadataTable, target_time: str) -> SyncMetadataTable:
    """What a data rollback of ``target_time`` does to the metadata table, for the plan."""
    files = metadata_log_files(mdt, target_time)
    if mdt.state.snapshot.timeline.entry(target_time, Action.DELTA_COMMIT) is None:
        return nothing_written(f"the rollback of {target_time}: that write never reached it")
    partitions = tuple(sorted({partition for partition, _ in files}))
    return SyncMetadataTable(
        reason=f"roll back its deltacommit {target_time} with the rollback's instant time: "
        f"{len(files)} log file(s) deleted ({', '.join(partitions) or 'none written'})",
        partitions=partitions,
    )


def _data_state(mdt: MetadataTable, storage: Storage, partitions: Sequence[str]) -> TableState:
    """The data table listing ``partitions``, with the config and timeline read when the
    metadata table was opened a moment ago (``hoodie.properties`` is not read again)."""
    data = mdt.data
    if data is None:
        return read_table_state(storage, partitions=partitions, verify=False)
    snapshot = data.snapshot
    return read_table_state(storage, partitions=partitions, verify=False, config=snapshot.config,
                            timeline=snapshot.timeline, metadata_table=snapshot.metadata_table)  # fmt: skip


def sync_clean(storage: Storage, instant: Instant, metadata: CleanMetadata, clock: Clock = utc_now) -> None:
    """Write the clean's metadata deltacommit (call it right before the clean completes)."""

    def build(mdt: MetadataTable) -> MetadataUpdate:
        snapshot = _data_state(mdt, storage, ()).snapshot
        indexes = table_indexes(storage, snapshot.config, latest_avro_schema(storage, snapshot))
        update = clean_update(instant.timestamp, metadata, indexes, snapshot.config.version)
        return MetadataUpdate(instant.timestamp, update.records, deletes=update.deletes)

    commit_to_metadata_table(storage, instant.timestamp, build, clock)


def _emptied_partitions(mdt: MetadataTable) -> str:
    if mdt.state.snapshot.config.version >= PARTITION_RECORD_DELETED_FROM_VERSION:
        return ", emptied partitions unlisted and their files records deleted"
    return ", emptied partitions unlisted"


def clean_writes(mdt: MetadataTable, files: int, deletes_partitions: bool) -> SyncMetadataTable:
    """What a clean writes into the metadata table, for the plan."""
    names = {p.name for p in mdt.partitions}
    parts = [
        f"files: the {files} deleted file(s) as deleted"
        + (_emptied_partitions(mdt) if deletes_partitions else "")
    ]
    if COLUMN_STATS in names:
        parts.append("column_stats: deletes for every indexed column of each deleted file")
    if BLOOM_FILTERS in names:
        parts.append("bloom_filters: deletes for each deleted base file")
    written = tuple(p for p in CLEAN_UPDATES if p in names)
    return SyncMetadataTable(reason="; ".join(parts) + " (at the clean's instant time)", partitions=written)


def sync_compaction(
    storage: Storage, instant: Instant, metadata: CommitMetadata, clock: Clock = utc_now
) -> None:
    """Write the compaction's metadata deltacommit (call it right before it completes)."""

    def build(mdt: MetadataTable) -> MetadataUpdate:
        config = mdt.data.snapshot.config if mdt.data is not None else load_config(storage)
        indexes = table_indexes(storage, config, metadata.table_schema)
        view = TableView({})
        if needs_partition_stats(indexes, metadata):  # the only records that read the data table
            state = _data_state(mdt, storage, sorted(metadata.partition_to_write_stats or {}))
            written = {p: tuple(w) for p, w in (metadata.partition_to_write_stats or {}).items()}
            files = latest_files_after(state.view, instant.timestamp, written)
            prefixes = partition_stats_prefixes(indexes.columns, written)
            view = TableView(files, mdt.read_prefixes(COLUMN_STATS, prefixes))
        records = compaction_update(instant.timestamp, metadata, storage, indexes, view)
        streamed = config.version >= STREAMING_FROM_VERSION
        return MetadataUpdate(instant.timestamp, records, streamed=streamed)

    commit_to_metadata_table(storage, instant.timestamp, build, clock)


def _new_file_keys(storage: Storage, config: TableConfig, metadata: CommitMetadata) -> list[MovedKeys]:
    """The record keys of each base file the write stats name (``_hoodie_record_key``, else
    built from the record key fields where the table does not populate meta fields)."""
    rules = MergeRules.for_table(config)
    wanted = [RECORD_KEY_COLUMN] if config.populate_meta_fields else list(rules.record_key_fields)
    moved = []
    for stat in metadata.write_stats():
        if stat.path is None or stat.file_id is None:
            continue
        with storage.open_input_file(stat.path) as handle:
            rows = pq.read_table(handle, columns=wanted)
        keys = record_keys(rows, rules).to_pylist()
        moved.append(MovedKeys(stat.partition_path or "", stat.file_id, [str(k) for k in keys]))
    return moved


def sync_clustering(
    storage: Storage, instant: Instant, metadata: CommitMetadata, clock: Clock = utc_now
) -> None:
    """Write the clustering's metadata deltacommit (call it right before it completes): the
    records of its new base files (as a compaction's), and record index upserts for every key
    they hold where the table has a record index."""

    def build(mdt: MetadataTable) -> MetadataUpdate:
        config = mdt.data.snapshot.config if mdt.data is not None else load_config(storage)
        indexes = table_indexes(storage, config, metadata.table_schema)
        view = TableView({})
        if needs_partition_stats(indexes, metadata):  # Hudi counts the replaced slices too
            state = _data_state(mdt, storage, sorted(metadata.partition_to_write_stats or {}))
            written = {p: tuple(w) for p, w in (metadata.partition_to_write_stats or {}).items()}
            files = latest_files_after(state.view, instant.timestamp, written)
            prefixes = partition_stats_prefixes(indexes.columns, written)
            view = TableView(files, mdt.read_prefixes(COLUMN_STATS, prefixes))
        moved = _new_file_keys(storage, config, metadata) if indexes.has(RECORD_INDEX) else []
        millis = instant_epoch_millis(instant.timestamp, config.timeline_timezone)
        records = clustering_update(instant.timestamp, metadata, storage, indexes, view, moved, millis)
        streamed = config.version >= STREAMING_FROM_VERSION
        return MetadataUpdate(instant.timestamp, records, streamed=streamed)

    commit_to_metadata_table(storage, instant.timestamp, build, clock)


def clustering_writes(mdt: MetadataTable, files: int) -> SyncMetadataTable:
    """What a clustering writes into the metadata table, for the plan."""
    names = {p.name for p in mdt.partitions}
    parts = [f"files: the {files} new base file(s) with their sizes (the replaced ones stay listed)"]
    if COLUMN_STATS in names:
        parts.append("column_stats: the new base files' statistics (from their footers)")
    if PARTITION_STATS in names:
        parts.append("partition_stats: recomputed for the partitions clustered")
    if BLOOM_FILTERS in names:
        parts.append("bloom_filters: the new base files' bloom filters")
    if RECORD_INDEX in names:
        parts.append("record_index: every record key of the new base files at its new file group")
    written = tuple(p for p in (*COMPACTION_UPDATES, RECORD_INDEX) if p in names)
    return SyncMetadataTable(
        reason="; ".join(parts) + " (at the clustering's instant time)", partitions=written
    )


def compaction_writes(mdt: MetadataTable, slices: int) -> SyncMetadataTable:
    """What a compaction writes into the metadata table, for the plan."""
    names = {p.name for p in mdt.partitions}
    parts = [f"files: the {slices} new base file(s) with their sizes"]
    if COLUMN_STATS in names:
        parts.append("column_stats: the new base files' statistics (from their footers)")
    if PARTITION_STATS in names:
        parts.append("partition_stats: recomputed for the partitions compacted")
    if BLOOM_FILTERS in names:
        parts.append("bloom_filters: the new base files' bloom filters")
    written = tuple(p for p in COMPACTION_UPDATES if p in names)
    return SyncMetadataTable(
        reason="; ".join(parts) + " (at the compaction's instant time)", partitions=written
    )
