"""A new table's ``hoodie.properties``, schema and partition metadata, as Hudi writes them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone

import pyarrow as pa

from maintainer.datagen.workload import DATA_SCHEMA, ORDERING_FIELD, PARTITION_FIELD, RECORD_KEY_FIELD
from maintainer.hudi.config.properties import (
    PROPERTIES_FILE,
    TableConfig,
    format_java_properties,
    table_checksum,
    table_config_from_properties,
)
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.storage import Storage

MERGE_STRATEGY_EVENT_TIME = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
DEFAULT_PAYLOAD = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
_AVRO_TYPES = {pa.int64(): "long", pa.string(): "string", pa.float64(): "double", pa.int32(): "int"}


@dataclass(frozen=True, slots=True)
class TableLayout:
    name: str
    table_type: str  # "cow" | "mor"
    version: int  # 6 | 8
    partitioned: bool
    metadata_table: bool = False
    """With a metadata table (``files`` partition; version 8)."""

    @property
    def is_mor(self) -> bool:
        return self.table_type == "mor"


def avro_schema(name: str) -> str:
    """The table's Avro record schema, nullable fields as Spark writes them."""
    fields = [{"name": f.name, "type": ["null", _AVRO_TYPES[f.type]], "default": None} for f in DATA_SCHEMA]
    record = {"type": "record", "name": f"{name}_record", "namespace": f"hoodie.{name}", "fields": fields}
    return json.dumps(record, separators=(",", ":"))


def table_properties(layout: TableLayout) -> dict[str, str]:
    values = {
        "hoodie.table.name": layout.name,
        "hoodie.table.type": "MERGE_ON_READ" if layout.is_mor else "COPY_ON_WRITE",
        "hoodie.table.version": str(layout.version),
        "hoodie.timeline.layout.version": str(TimelineLayout.for_version(layout.version).value),
        "hoodie.table.recordkey.fields": RECORD_KEY_FIELD,
        "hoodie.table.precombine.field": ORDERING_FIELD,
        "hoodie.compaction.payload.class": DEFAULT_PAYLOAD,
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.partitionpath.urlencode": "false",
        "hoodie.datasource.write.drop.partition.columns": "false",
        "hoodie.table.base.file.format": "PARQUET",
        "hoodie.populate.meta.fields": "true",
        "hoodie.table.timeline.timezone": "UTC",
        "hoodie.archivelog.folder": "archived",
        "hoodie.database.name": "default",
        "hoodie.table.create.schema": avro_schema(layout.name),
    }
    if layout.partitioned:
        values["hoodie.table.partition.fields"] = PARTITION_FIELD
    keygen = "SimpleKeyGenerator" if layout.partitioned else "NonpartitionedKeyGenerator"
    if layout.version < 8:
        values["hoodie.table.keygenerator.class"] = f"org.apache.hudi.keygen.{keygen}"
    else:
        values.update(
            {
                "hoodie.table.keygenerator.type": "SIMPLE" if layout.partitioned else "NON_PARTITION",
                "hoodie.table.initial.version": str(layout.version),
                "hoodie.timeline.path": "timeline",
                "hoodie.timeline.history.path": "history",
                "hoodie.record.merge.mode": "EVENT_TIME_ORDERING",
                "hoodie.record.merge.strategy.id": MERGE_STRATEGY_EVENT_TIME,
                "hoodie.table.metadata.partitions": "files" if layout.metadata_table else "",
                "hoodie.table.metadata.partitions.inflight": "",
            }
        )
    values["hoodie.table.checksum"] = str(table_checksum("default", layout.name))
    return values


def _java_date(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%a %b %d %H:%M:%S UTC %Y")


def create_table(storage: Storage, layout: TableLayout, now: datetime) -> TableConfig:
    """Write ``.hoodie/hoodie.properties`` and the timeline directories of a new table."""
    values = table_properties(layout)
    comments = (f"Updated at {now.astimezone(timezone.utc).isoformat()}", _java_date(now))
    storage.write_if_absent(PROPERTIES_FILE, format_java_properties(values, comments).encode("latin-1"))
    config = table_config_from_properties(values, storage.uri(PROPERTIES_FILE))
    storage.make_dirs(config.archive_dir)
    return config


def partition_metadata(instant_time: str, depth: int, now: datetime) -> bytes:
    """The ``.hoodie_partition_metadata`` file of a partition first written by ``instant_time``."""
    text = f"#partition metadata\n#{_java_date(now)}\ncommitTime={instant_time}\npartitionDepth={depth}\n"
    return text.encode()
