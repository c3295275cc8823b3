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
from maintainer.hudi.payloads.records import AvroRecord, avro, unknown_fields
from maintainer.hudi.payloads.write_stat import WriteStat

UNKNOWN_OPERATION = "UNKNOWN"
"""Java's ``WriteOperationType.UNKNOWN``: the operation of an empty commit metadata."""

_JSON_FIELDS = ("partitionToWriteStats", "compacted", "extraMetadata", "operationType")


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitMetadata(AvroRecord):
    """``HoodieCommitMetadata``: the write stats per partition, the schema and the operation.

    Decodes an Avro record or a parsed Jackson JSON object (JSON carries no ``version``).
    """

    SCHEMA: ClassVar[str] = "HoodieCommitMetadata"

    partition_to_write_stats: Mapping[str, tuple[WriteStat, ...]] | None = field(
        default=None, metadata=avro("partitionToWriteStats")
    )
    compacted: bool | None = field(default=False, metadata=avro("compacted"))
    extra_metadata: Mapping[str, str] | None = field(default=None, metadata=avro("extraMetadata"))
    version: int | None = field(default=1, metadata=avro("version"))
    operation_type: str | None = field(default=None, metadata=avro("operationType"))
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=unknown_fields())
    """Properties of a JSON source that have no attribute here (never written to Avro)."""

    @classmethod
    def empty(cls) -> CommitMetadata:
        """What Hudi reads from an empty commit file."""
        return cls(
            partition_to_write_stats={}, compacted=False, extra_metadata={}, operation_type=UNKNOWN_OPERATION
        )

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

    partition_to_replace_file_ids: Mapping[str, tuple[str, ...]] | None = field(
        default=None, metadata=avro("partitionToReplaceFileIds")
    )

    @classmethod
    def empty(cls) -> ReplaceCommitMetadata:
        return cls(
            partition_to_write_stats={},
            compacted=False,
            extra_metadata={},
            operation_type=UNKNOWN_OPERATION,
            partition_to_replace_file_ids={},
        )

    def to_json(self) -> dict[str, Any]:
        """As :meth:`CommitMetadata.to_json`, plus ``partitionToReplaceFileIds`` when set (inflight
        replacecommit files of v6 are plain commit metadata and have none)."""
        base = CommitMetadata.to_json(self)
        result = {key: base.pop(key) for key in _JSON_FIELDS}
        if self.partition_to_replace_file_ids is not None:
            replaced = self.partition_to_replace_file_ids
            result["partitionToReplaceFileIds"] = {key: list(ids) for key, ids in replaced.items()}
        result.update(base)
        return result

    def replaced_file_ids(self) -> frozenset[tuple[str, str]]:
        """The replaced file groups as (partition path, file id) pairs."""
        return frozenset(
            (partition, file_id)
            for partition, file_ids in (self.partition_to_replace_file_ids or {}).items()
            for file_id in file_ids
        )
