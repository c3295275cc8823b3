"""A generated table's metadata table (table version 8, ``files`` partition), as Hudi 1.0's
writers create and keep it: the metadata table's properties, the bootstrap deltacommit
``00000000000000000`` with its base HFile (the empty partition list) and empty first log file,
then, before each data commit completes, a deltacommit with the same instant time listing the
commit's files (:func:`maintainer.hudi.metadata.commit.commit_to_metadata_table`)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from importlib import resources

import fastavro

from maintainer.clock import Clock
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import (
    format_java_properties,
    table_checksum,
    table_config_from_properties,
)
from maintainer.hudi.hfile import HFileCell, HFileStyle, write_hfile
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat.writer import delete_block
from maintainer.hudi.metadata.commit import commit_to_metadata_table
from maintainer.hudi.metadata.partitions import ALL_PARTITIONS_KEY, FILES, RecordType
from maintainer.hudi.metadata.record_schema import MetadataSchemas
from maintainer.hudi.metadata.records import MetadataRecord, parsed_schema
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.updates.commit import files_records
from maintainer.hudi.metadata.writer import STREAMING_FROM_VERSION, MetadataUpdate
from maintainer.hudi.parquet.bloom import DEFAULT_CONFIG, BloomFilterBuilder
from maintainer.hudi.payloads import CommitMetadata, WriteStat
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR
from maintainer.storage import Storage

BOOTSTRAP = "00000000000000000"
FILE_ID = "files-0000-0"
BASE_FILE = f"{FILE_ID}_0-0-0_{BOOTSTRAP}.hfile"
SCHEMA_FILE = "HoodieMetadataRecord.v8.avsc"


def record_schema() -> str:
    """Hudi 1.0's ``HoodieMetadataRecord`` schema, as its deltacommits record it."""
    source = resources.files("maintainer") / "resources" / "metadata_table" / SCHEMA_FILE
    return source.read_text(encoding="utf-8").strip()


def metadata_properties(table_name: str) -> dict[str, str]:
    return {
        "hoodie.compaction.payload.class": "org.apache.hudi.metadata.HoodieMetadataPayload",
        "hoodie.table.initial.version": "8",
        "hoodie.table.keygenerator.type": "HOODIE_TABLE_METADATA",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.archivelog.folder": "history",
        "hoodie.timeline.layout.version": "2",
        "hoodie.timeline.history.path": "history",
        "hoodie.table.checksum": str(table_checksum("", f"{table_name}_metadata")),
        "hoodie.datasource.write.drop.partition.columns": "false",
        "hoodie.record.merge.strategy.id": "00000000-0000-0000-0000-000000000000",
        "hoodie.table.recordkey.fields": "key",
        "hoodie.table.name": f"{table_name}_metadata",
        "hoodie.timeline.path": "timeline",
        "hoodie.populate.meta.fields": "false",
        "hoodie.table.base.file.format": "HFILE",
        "hoodie.record.merge.mode": "CUSTOM",
        "hoodie.table.version": "8",
    }


def create_metadata_table(data: Storage, table_name: str, clock: Clock) -> None:
    """The metadata table of a new (empty) table: properties and the bootstrap deltacommit."""
    storage = data.child(METADATA_TABLE_DIR)
    values = metadata_properties(table_name)
    now = clock()
    comments = (f"Properties saved on {now.astimezone(timezone.utc).isoformat()}", _java_date(now))
    storage.write_if_absent(
        ".hoodie/hoodie.properties", format_java_properties(values, comments).encode("latin-1")
    )
    config = table_config_from_properties(values, storage.uri(".hoodie/hoodie.properties"))
    storage.make_dirs(config.archive_dir)
    writer = TimelineWriter(storage, config, clock)
    requested = writer.create_requested(Action.DELTA_COMMIT, b"", instant_time=BOOTSTRAP, mirrored=True)
    inflight = writer.transition_to_inflight(requested)
    storage.write_if_absent(f"{FILES}/.hoodie_partition_metadata", _partition_metadata(now))
    base = bootstrap_base_file(record_schema())
    storage.write_if_absent(f"{FILES}/{BASE_FILE}", base)
    storage.write_if_absent(f"{FILES}/.{FILE_ID}_{BOOTSTRAP}.log.1_0-0-0", delete_block([], BOOTSTRAP))
    writer.complete(inflight, payloads.encode_avro(_bootstrap_commit(len(base))))


def bootstrap_base_file(schema_json: str) -> bytes:
    """The ``files`` partition's first base HFile: the (empty) partition list."""
    block_schema = MetadataSchemas(schema_json).block_schema
    record: MetadataRecord = {
        "key": "",
        "type": int(RecordType.PARTITION_LIST),
        "filesystemMetadata": {},
        "_hoodie_file_name": BASE_FILE,
    }
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, parsed_schema(block_schema), record)
    bloom = BloomFilterBuilder(DEFAULT_CONFIG)
    bloom.add([ALL_PARTITIONS_KEY])
    info = {
        b"bloomFilterTypeCode": DEFAULT_CONFIG.type_code.encode(),
        b"minRecordKey": ALL_PARTITIONS_KEY.encode(),
        b"maxRecordKey": ALL_PARTITIONS_KEY.encode(),
        b"schema": block_schema.encode(),
    }
    cells = [HFileCell(ALL_PARTITIONS_KEY.encode(), buffer.getvalue())]
    meta = [("bloomFilter", bloom.build().serialize().encode("ascii"))]
    return write_hfile(cells, style=HFileStyle.HBASE, file_info=info, meta_blocks=meta)


def _bootstrap_commit(size: int) -> CommitMetadata:
    stat = WriteStat(
        file_id=FILE_ID,
        path=f"{FILES}/{BASE_FILE}",
        prev_commit="null",
        partition_path=FILES,
        num_writes=1,
        num_deletes=0,
        num_update_writes=0,
        num_inserts=1,
        total_write_bytes=size,
        total_write_errors=0,
        file_size_in_bytes=size,
        runtime_stats={"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0},
    )
    return CommitMetadata(
        partition_to_write_stats={FILES: (stat,)},
        compacted=False,
        extra_metadata={"schema": record_schema()},
        version=None,
        operation_type="BULK_INSERT",
    )


def sync_commit(
    data: Storage, instant_time: str, stats: Mapping[str, Sequence[WriteStat]], clock: Clock
) -> None:
    """The metadata deltacommit of a data commit (before the commit completes)."""

    def build(mdt: MetadataTable) -> MetadataUpdate:
        streamed = mdt.state.snapshot.config.version >= STREAMING_FROM_VERSION
        return MetadataUpdate(instant_time, {FILES: files_records(stats)}, streamed=streamed)

    commit_to_metadata_table(data, instant_time, build, clock)


def _partition_metadata(now: datetime) -> bytes:
    return f"#partition metadata\n#{_java_date(now)}\ncommitTime={BOOTSTRAP}\npartitionDepth=1\n".encode()


def _java_date(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%a %b %d %H:%M:%S UTC %Y")
