"""Commit metadata: the content of commit, deltacommit and replacecommit instants.

Table version 6 writes it as pretty-printed Jackson JSON (:meth:`CommitMetadata.to_json_bytes`
reproduces Hudi's bytes), version 8+ as Avro ``HoodieCommitMetadata`` /
``HoodieReplaceCommitMetadata``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from maintainer.hudi.payloads import jackson
from maintainer.hudi.payloads.common import Record, map_or_none, strings_map, strings_map_record
from maintainer.hudi.payloads.write_stat import WriteStat

UNKNOWN_OPERATION = "UNKNOWN"
"""Java's ``WriteOperationType.UNKNOWN``: the operation of an empty commit metadata."""

_JSON_FIELDS = ("partitionToWriteStats", "compacted", "extraMetadata", "operationType")


def _stats_from(value: Mapping[str, Any] | None) -> dict[str, tuple[WriteStat, ...]] | None:
    return map_or_none(value, lambda stats: tuple(WriteStat.from_record(stat) for stat in stats))


def _common_fields(record: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {
        "partition_to_write_stats": _stats_from(record.get("partitionToWriteStats")),
        "compacted": record.get("compacted"),
        "extra_metadata": map_or_none(record.get("extraMetadata")),
        "version": record.get("version"),
        "operation_type": record.get("operationType"),
        "extra": {key: value for key, value in record.items() if key not in known},
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitMetadata:
    """``HoodieCommitMetadata``: the write stats per partition, the schema and the operation."""

    SCHEMA: ClassVar[str] = "HoodieCommitMetadata"
    AVRO_FIELDS: ClassVar[tuple[str, ...]] = (*_JSON_FIELDS, "version")

    partition_to_write_stats: Mapping[str, tuple[WriteStat, ...]] | None = None
    compacted: bool | None = False
    extra_metadata: Mapping[str, str] | None = None
    version: int | None = 1
    operation_type: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Properties of a JSON source that have no attribute here (never written to Avro)."""

    @classmethod
    def empty(cls) -> CommitMetadata:
        """What Hudi reads from an empty commit file."""
        return cls(
            partition_to_write_stats={}, compacted=False, extra_metadata={}, operation_type=UNKNOWN_OPERATION
        )

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CommitMetadata:
        """From an Avro record or a parsed Jackson JSON object (JSON carries no ``version``)."""
        return cls(**_common_fields(record, cls.AVRO_FIELDS))

    def to_record(self) -> Record:
        return {
            "partitionToWriteStats": map_or_none(
                self.partition_to_write_stats, lambda stats: [stat.to_record() for stat in stats]
            ),
            "compacted": self.compacted,
            "extraMetadata": map_or_none(self.extra_metadata),
            "version": self.version,
            "operationType": self.operation_type,
        }

    def to_json(self) -> dict[str, Any]:
        """The object Hudi 0.x's Jackson writes, properties in its order."""
        stats = self.partition_to_write_stats or {}
        result: dict[str, Any] = {
            "partitionToWriteStats": {
                key: [stat.to_json() for stat in value] for key, value in stats.items()
            },
            "compacted": self.compacted,
            "extraMetadata": dict(self.extra_metadata or {}),
            "operationType": self.operation_type,
        }
        result.update((key, value) for key, value in self.extra.items() if key not in result)
        return result

    def to_json_bytes(self) -> bytes:
        """The v6 commit file: pretty-printed JSON, byte for byte as Hudi 0.x writes it."""
        return jackson.dumps(self.to_json()).encode("utf-8")

    def write_stats(self) -> Iterator[WriteStat]:
        """Every write stat, partition by partition."""
        for stats in (self.partition_to_write_stats or {}).values():
            yield from stats

    @property
    def table_schema(self) -> str | None:
        """The writer's table Avro schema (``extraMetadata["schema"]``), if recorded."""
        return (self.extra_metadata or {}).get("schema")


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplaceCommitMetadata(CommitMetadata):
    """``HoodieReplaceCommitMetadata``: commit metadata plus the file groups replaced, per partition."""

    SCHEMA: ClassVar[str] = "HoodieReplaceCommitMetadata"
    AVRO_FIELDS: ClassVar[tuple[str, ...]] = (*CommitMetadata.AVRO_FIELDS, "partitionToReplaceFileIds")

    partition_to_replace_file_ids: Mapping[str, tuple[str, ...]] | None = None

    @classmethod
    def empty(cls) -> ReplaceCommitMetadata:
        return cls(
            partition_to_write_stats={},
            compacted=False,
            extra_metadata={},
            operation_type=UNKNOWN_OPERATION,
            partition_to_replace_file_ids={},
        )

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ReplaceCommitMetadata:
        return cls(
            **_common_fields(record, cls.AVRO_FIELDS),
            partition_to_replace_file_ids=strings_map(record.get("partitionToReplaceFileIds")),
        )

    def to_record(self) -> Record:
        record = CommitMetadata.to_record(self)
        record["partitionToReplaceFileIds"] = strings_map_record(self.partition_to_replace_file_ids)
        return record

    def to_json(self) -> dict[str, Any]:
        """As :meth:`CommitMetadata.to_json`, plus ``partitionToReplaceFileIds`` when set (inflight
        replacecommit files of v6 are plain commit metadata and have none)."""
        base = CommitMetadata.to_json(self)
        result = {key: base.pop(key) for key in _JSON_FIELDS}
        if self.partition_to_replace_file_ids is not None:
            result["partitionToReplaceFileIds"] = strings_map_record(self.partition_to_replace_file_ids)
        result.update(base)
        return result

    def replaced_file_ids(self) -> frozenset[tuple[str, str]]:
        """The replaced file groups as (partition path, file id) pairs."""
        return frozenset(
            (partition, file_id)
            for partition, file_ids in (self.partition_to_replace_file_ids or {}).items()
            for file_id in file_ids
        )
