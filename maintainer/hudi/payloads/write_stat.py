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

from maintainer.hudi.payloads.common import Record

AVRO_FIELDS: tuple[tuple[str, str], ...] = (
    ("fileId", "file_id"),
    ("path", "path"),
    ("prevCommit", "prev_commit"),
    ("numWrites", "num_writes"),
    ("numDeletes", "num_deletes"),
    ("numUpdateWrites", "num_update_writes"),
    ("totalWriteBytes", "total_write_bytes"),
    ("totalWriteErrors", "total_write_errors"),
    ("partitionPath", "partition_path"),
    ("totalLogRecords", "total_log_records"),
    ("totalLogFiles", "total_log_files"),
    ("totalUpdatedRecordsCompacted", "total_updated_records_compacted"),
    ("numInserts", "num_inserts"),
    ("totalLogBlocks", "total_log_blocks"),
    ("totalCorruptLogBlock", "total_corrupt_log_block"),
    ("totalRollbackBlocks", "total_rollback_blocks"),
    ("fileSizeInBytes", "file_size_in_bytes"),
    ("logVersion", "log_version"),
    ("logOffset", "log_offset"),
    ("baseFile", "base_file"),
    ("logFiles", "log_files"),
    ("cdcStats", "cdc_stats"),
    ("prevBaseFile", "prev_base_file"),
    ("minEventTime", "min_event_time"),
    ("maxEventTime", "max_event_time"),
    ("runtimeStats", "runtime_stats"),
    ("totalLogFilesCompacted", "total_log_files_compacted"),
    ("totalLogReadTimeMs", "total_log_read_time_ms"),
    ("totalLogSizeCompacted", "total_log_size_compacted"),
    ("tempPath", "temp_path"),
    ("numUpdates", "num_updates"),
)
"""(Avro/JSON name, attribute) of every typed field, in the Avro schema's order."""

_ATTRIBUTES = dict(AVRO_FIELDS)

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


@dataclass(frozen=True, slots=True, kw_only=True)
class WriteStat:
    """One file written (or compacted) by a commit; ``path`` is relative to the table base path."""

    file_id: str | None = None
    path: str | None = None
    prev_commit: str | None = None
    partition_path: str | None = None
    num_writes: int | None = None
    num_deletes: int | None = None
    num_update_writes: int | None = None
    num_inserts: int | None = None
    total_write_bytes: int | None = None
    total_write_errors: int | None = None
    file_size_in_bytes: int | None = None
    total_log_records: int | None = None
    total_log_files: int | None = None
    total_log_blocks: int | None = None
    total_corrupt_log_block: int | None = None
    total_rollback_blocks: int | None = None
    total_updated_records_compacted: int | None = None
    total_log_files_compacted: int | None = None
    total_log_size_compacted: int | None = None
    total_log_read_time_ms: int | None = None
    log_version: int | None = None
    log_offset: int | None = None
    base_file: str | None = None
    log_files: tuple[str, ...] | None = None
    prev_base_file: str | None = None
    temp_path: str | None = None
    cdc_stats: Mapping[str, int] | None = None
    min_event_time: int | None = None
    max_event_time: int | None = None
    runtime_stats: Mapping[str, int | None] | None = None
    num_updates: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Fields of the source that have no attribute here, in their original order."""

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> WriteStat:
        """From an Avro record or a Jackson JSON object (both use the same property names)."""
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for name, value in record.items():
            attribute = _ATTRIBUTES.get(name)
            if attribute is None:
                extra[name] = value
            elif name == "logFiles":
                values[attribute] = tuple(value) if value is not None else None
            elif name in ("cdcStats", "runtimeStats"):
                values[attribute] = dict(value) if value is not None else None
            else:
                values[attribute] = value
        return cls(**values, extra=extra)

    def to_record(self) -> Record:
        """The Avro ``HoodieWriteStat`` record (``extra`` has no place in Avro and is left out)."""
        record = {name: getattr(self, attribute) for name, attribute in AVRO_FIELDS}
        record["logFiles"] = list(self.log_files) if self.log_files is not None else None
        record["cdcStats"] = dict(self.cdc_stats) if self.cdc_stats is not None else None
        record["runtimeStats"] = _runtime_stats_record(self.runtime_stats)
        return record

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
        values = {name: getattr(self, attribute) for name, attribute in AVRO_FIELDS}
        values["logFiles"] = list(self.log_files) if self.log_files is not None else None
        values.update(self.extra)
        names = JSON_BASE_FIELDS + (JSON_DELTA_FIELDS if self.is_log_write else ())
        result = {name: _json_value(name, values.get(name)) for name in names}
        result.update((name, value) for name, value in self.extra.items() if name not in result)
        return result


def _runtime_stats_record(stats: Mapping[str, int | None] | None) -> Record | None:
    if stats is None:
        return None
    return {name: stats.get(name) for name in ("totalScanTime", "totalCreateTime", "totalUpsertTime")}


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
