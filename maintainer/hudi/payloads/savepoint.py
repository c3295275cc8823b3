"""Savepoint payload: the content of a completed ``savepoint`` instant."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maintainer.hudi.payloads.common import Record


@dataclass(frozen=True, slots=True, kw_only=True)
class SavepointPartitionMetadata:
    """``HoodieSavepointPartitionMetadata``: the file names a savepoint keeps in one partition."""

    partition_path: str
    savepoint_data_file: tuple[str, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> SavepointPartitionMetadata:
        return cls(
            partition_path=record["partitionPath"], savepoint_data_file=tuple(record["savepointDataFile"])
        )

    def to_record(self) -> Record:
        return {"partitionPath": self.partition_path, "savepointDataFile": list(self.savepoint_data_file)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SavepointMetadata:
    """``HoodieSavepointMetadata``: who savepointed when (epoch millis), and the files kept."""

    SCHEMA: ClassVar[str] = "HoodieSavepointMetadata"

    savepointed_by: str
    savepointed_at: int
    comments: str
    partition_metadata: Mapping[str, SavepointPartitionMetadata]
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> SavepointMetadata:
        return cls(
            savepointed_by=record["savepointedBy"],
            savepointed_at=record["savepointedAt"],
            comments=record["comments"],
            partition_metadata={
                key: SavepointPartitionMetadata.from_record(value)
                for key, value in record["partitionMetadata"].items()
            },
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "savepointedBy": self.savepointed_by,
            "savepointedAt": self.savepointed_at,
            "comments": self.comments,
            "partitionMetadata": {key: value.to_record() for key, value in self.partition_metadata.items()},
            "version": self.version,
        }

    def data_files(self) -> frozenset[str]:
        """Every file name the savepoint keeps, over all partitions."""
        return frozenset(
            name for meta in self.partition_metadata.values() for name in meta.savepoint_data_file
        )
