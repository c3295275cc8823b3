"""``HoodieWriteStat``: what one write did to one file, as stored in commit metadata.

Table version 6 stores it as Jackson JSON (a ``HoodieWriteStat`` or, for log writes, a
``HoodieDeltaWriteStat`` POJO), version 8+ as Avro. Fields that are neither typed here nor in the
Avro schema (e.g. the JSON-only ``recordsStats``) are kept in ``extra`` so that re-encoding
loses nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from maintainer.hudi.payloads.records import AvroRecord, Record, avro, plan_of, unknown_fields

JSON_BASE_FIELDS = (
    "fileId", "path", "cdcStats", "prevCommit", "numWrites", "numDeletes", "numUpdateWrites", "numInserts",
    "totalWriteBytes", "totalWriteErrors", "tempPath", "partitionPath", "totalLogRecords",
    "totalLogFilesCompacted", "totalLogSizeCompacted", "totalUpdatedRecordsCompacted", "totalLogBlocks",
    "totalCorruptLogBlock", "totalRollbackBlocks", "fileSizeInBytes", "minEventTime", "maxEventTime",
    "runtimeStats",
)  # fmt: skip
"""The properties Jackson writes for every ``HoodieWriteStat``, in its order."""

JSON_DELTA_FIELDS = ("logVersion", "logOffset", "baseFile", "logFiles", "recordsStats")
"""The properties ``HoodieDeltaWriteStat`` (log writes) adds after the base ones."""

JSON_PRIMITIVE_FIELDS = frozenset({
    "numWrites", "numDeletes", "numUpdateWrites", "numInserts", "totalWriteBytes", "totalWriteErrors",
    "totalLogRecords", "totalLogFilesCompacted", "totalLogSizeCompacted", "totalUpdatedRecordsCompacted",
    "totalLogBlocks", "totalCorruptLogBlock", "totalRollbackBlocks", "fileSizeInBytes",
    "logVersion", "logOffset",
})  # fmt: skip
"""Java primitives: Jackson writes 0 for them when we hold no value."""


def _runtime_stats_record(stats: Mapping[str, int | None]) -> Record:
    """``HoodieRuntimeStats``: its three fields, each None where the stats lack it."""
    return {name: stats.get(name) for name in ("totalScanTime", "totalCreateTime", "totalUpsertTime")}


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteStat(AvroRecord):
    """One file written (or compacted) by a commit; ``path`` is relative to the table base path."""

    file_id: str | None = field(default=None, metadata=avro("fileId"))
    path: str | None = field(default=None, metadata=avro("path"))
    prev_commit: str | None = field(default=None, metadata=avro("prevCommit"))
    partition_path: str | None = field(default=None, metadata=avro("partitionPath"))
    num_writes: int | None = field(default=None, metadata=avro("numWrites"))
    num_deletes: int | None = field(default=None, metadata=avro("numDeletes"))
    num_update_writes: int | None = field(default=None, metadata=avro("numUpdateWrites"))
    num_inserts: int | None = field(default=None, metadata=avro("numInserts"))
    total_write_bytes: int | None = field(default=None, metadata=avro("totalWriteBytes"))
    total_write_errors: int | None = field(default=None, metadata=avro("totalWriteErrors"))
    file_size_in_bytes: int | None = field(default=None, metadata=avro("fileSizeInBytes"))
    total_log_records: int | None = field(default=None, metadata=avro("totalLogRecords"))
    total_log_files: int | None = field(default=None, metadata=avro("totalLogFiles"))
    total_log_blocks: int | None = field(default=None, metadata=avro("totalLogBlocks"))
    total_corrupt_log_block: int | None = field(default=None, metadata=avro("totalCorruptLogBlock"))
    total_rollback_blocks: int | None = field(default=None, metadata=avro("totalRollbackBlocks"))
    total_updated_records_compacted: int | None = field(
        default=None, metadata=avro("totalUpdatedRecordsCompacted")
    )
    total_log_files_compacted: int | None = field(default=None, metadata=avro("totalLogFilesCompacted"))
    total_log_size_compacted: int | None = field(default=None, metadata=avro("totalLogSizeCompacted"))
    total_log_read_time_ms: int | None = field(default=None, metadata=avro("totalLogReadTimeMs"))
    log_version: int | None = field(default=None, metadata=avro("logVersion"))
    log_offset: int | None = field(default=None, metadata=avro("logOffset"))
    base_file: str | None = field(default=None, metadata=avro("baseFile"))
    log_files: tuple[str, ...] | None = field(default=None, metadata=avro("logFiles"))
    prev_base_file: str | None = field(default=None, metadata=avro("prevBaseFile"))
    temp_path: str | None = field(default=None, metadata=avro("tempPath"))
    cdc_stats: Mapping[str, int] | None = field(default=None, metadata=avro("cdcStats"))
    min_event_time: int | None = field(default=None, metadata=avro("minEventTime"))
    max_event_time: int | None = field(default=None, metadata=avro("maxEventTime"))
    runtime_stats: Mapping[str, int | None] | None = field(
        default=None, metadata=avro("runtimeStats", encode=_runtime_stats_record)
    )
    num_updates: int | None = field(default=None, metadata=avro("numUpdates"))
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=unknown_fields())
    """Fields of the source that have no attribute here, in their original order."""

    @property
    def is_log_write(self) -> bool:
        """Whether this is a log write (Java's ``HoodieDeltaWriteStat``)."""
        return (
            self.log_version is not None
            or self.log_files is not None
            or self.base_file is not None
            or "recordsStats" in self.extra
        )

    def to_json(self) -> dict[str, Any]:
        """The object Jackson writes for this stat in v6 commit metadata, properties in Jackson's order."""
        values = plan_of(WriteStat).unconverted(self)
        values["logFiles"] = list(self.log_files) if self.log_files is not None else None
        values.update(self.extra)
        names = JSON_BASE_FIELDS + (JSON_DELTA_FIELDS if self.is_log_write else ())
        result = {name: _json_value(name, values.get(name)) for name in names}
        result.update((name, value) for name, value in self.extra.items() if name not in result)
        return result


def _json_value(name: str, value: Any) -> Any:
    if value is not None:
        return value
    if name in JSON_PRIMITIVE_FIELDS:
        return 0
    if name == "logFiles":
        return []
    if name == "recordsStats":
        return {"val": None}
    return None


JAVA_ZERO_COUNTERS: dict[str, int] = dict.fromkeys(
    (
        "num_writes",
        "num_deletes",
        "num_update_writes",
        "num_inserts",
        "total_write_bytes",
        "total_write_errors",
        "file_size_in_bytes",
        "total_log_records",
        "total_log_blocks",
        "total_corrupt_log_block",
        "total_rollback_blocks",
        "total_updated_records_compacted",
        "total_log_files_compacted",
        "total_log_size_compacted",
        "total_log_read_time_ms",
        "num_updates",
    ),
    0,
)
"""The counters a Java ``HoodieWriteStat`` starts with at 0 (``long`` fields); the others null."""


def counted_stat(**fields: Any) -> WriteStat:
    """A write stat as Hudi's Java object has it: every counter 0 unless given, the rest null."""
    return WriteStat(**{**JAVA_ZERO_COUNTERS, **fields})
