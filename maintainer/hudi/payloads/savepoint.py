"""Savepoint payload: the content of a completed ``savepoint`` instant."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from maintainer.hudi.payloads.records import AvroRecord, avro


@dataclass(frozen=True, slots=True, kw_only=True)
class SavepointPartitionMetadata(AvroRecord):
    """``HoodieSavepointPartitionMetadata``: the file names a savepoint keeps in one partition."""

    partition_path: str = field(metadata=avro("partitionPath", required=True))
    savepoint_data_file: tuple[str, ...] = field(
        default=(), metadata=avro("savepointDataFile", required=True)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SavepointMetadata(AvroRecord):
    """``HoodieSavepointMetadata``: who savepointed when (epoch millis), and the files kept."""

    SCHEMA: ClassVar[str] = "HoodieSavepointMetadata"

    savepointed_by: str = field(metadata=avro("savepointedBy", required=True))
    savepointed_at: int = field(metadata=avro("savepointedAt", required=True))
    comments: str = field(metadata=avro("comments", required=True))
    partition_metadata: Mapping[str, SavepointPartitionMetadata] = field(
        metadata=avro("partitionMetadata", required=True)
    )
    version: int | None = field(default=1, metadata=avro("version", missing=1))

    def data_files(self) -> frozenset[str]:
        """Every file name the savepoint keeps, over all partitions."""
        return frozenset(
            name for meta in self.partition_metadata.values() for name in meta.savepoint_data_file
        )
