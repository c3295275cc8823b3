"""Clean payloads: the plan (``clean.requested``) and the completed clean's metadata."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maintainer.hudi.payloads.common import (
    ActionInstant,
    Record,
    list_or_none,
    map_or_none,
    strings_map,
    strings_map_record,
    tuple_or_none,
)

CLEAN_PLAN_VERSION = 2
"""The clean plan and clean metadata version Hudi 0.14 to 1.x write."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanFileInfo:
    """``HoodieCleanFileInfo``: one file to delete, by full path."""

    file_path: str | None
    is_bootstrap_base_file: bool | None = False

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanFileInfo:
        return cls(file_path=record.get("filePath"), is_bootstrap_base_file=record.get("isBootstrapBaseFile"))

    def to_record(self) -> Record:
        return {"filePath": self.file_path, "isBootstrapBaseFile": self.is_bootstrap_base_file}


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanerPlan:
    """``HoodieCleanerPlan``: what a clean will delete, per partition (relative path, "" if unpartitioned)."""

    SCHEMA: ClassVar[str] = "HoodieCleanerPlan"

    policy: str
    earliest_instant_to_retain: ActionInstant | None = None
    last_completed_commit_timestamp: str = ""
    files_to_be_deleted_per_partition: Mapping[str, tuple[str, ...]] | None = None
    version: int | None = CLEAN_PLAN_VERSION
    file_paths_to_be_deleted_per_partition: Mapping[str, tuple[CleanFileInfo, ...]] | None = None
    partitions_to_be_deleted: tuple[str, ...] | None = None
    extra_metadata: Mapping[str, str] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanerPlan:
        ectr = record.get("earliestInstantToRetain")
        return cls(
            policy=record["policy"],
            earliest_instant_to_retain=ActionInstant.from_record(ectr) if ectr is not None else None,
            last_completed_commit_timestamp=record.get("lastCompletedCommitTimestamp", ""),
            files_to_be_deleted_per_partition=strings_map(record.get("filesToBeDeletedPerPartition")),
            version=record.get("version", 1),
            file_paths_to_be_deleted_per_partition=map_or_none(
                record.get("filePathsToBeDeletedPerPartition"),
                lambda infos: tuple(CleanFileInfo.from_record(info) for info in infos),
            ),
            partitions_to_be_deleted=tuple_or_none(record.get("partitionsToBeDeleted")),
            extra_metadata=map_or_none(record.get("extraMetadata")),
        )

    def to_record(self) -> Record:
        ectr = self.earliest_instant_to_retain
        return {
            "earliestInstantToRetain": ectr.to_record() if ectr is not None else None,
            "lastCompletedCommitTimestamp": self.last_completed_commit_timestamp,
            "policy": self.policy,
            "filesToBeDeletedPerPartition": strings_map_record(self.files_to_be_deleted_per_partition),
            "version": self.version,
            "filePathsToBeDeletedPerPartition": map_or_none(
                self.file_paths_to_be_deleted_per_partition,
                lambda infos: [info.to_record() for info in infos],
            ),
            "partitionsToBeDeleted": list_or_none(self.partitions_to_be_deleted),
            "extraMetadata": map_or_none(self.extra_metadata),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanPartitionMetadata:
    """``HoodieCleanPartitionMetadata``: what a clean did in one partition (file names)."""

    partition_path: str
    policy: str
    delete_path_patterns: tuple[str, ...] = ()
    success_delete_files: tuple[str, ...] = ()
    failed_delete_files: tuple[str, ...] = ()
    is_partition_deleted: bool | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanPartitionMetadata:
        return cls(
            partition_path=record["partitionPath"],
            policy=record["policy"],
            delete_path_patterns=tuple(record["deletePathPatterns"]),
            success_delete_files=tuple(record["successDeleteFiles"]),
            failed_delete_files=tuple(record["failedDeleteFiles"]),
            is_partition_deleted=record.get("isPartitionDeleted"),
        )

    def to_record(self) -> Record:
        return {
            "partitionPath": self.partition_path,
            "policy": self.policy,
            "deletePathPatterns": list(self.delete_path_patterns),
            "successDeleteFiles": list(self.success_delete_files),
            "failedDeleteFiles": list(self.failed_delete_files),
            "isPartitionDeleted": self.is_partition_deleted,
        }


def _partitions_from_record(
    record: Mapping[str, Any] | None,
) -> dict[str, CleanPartitionMetadata] | None:
    return map_or_none(record, CleanPartitionMetadata.from_record)


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanMetadata:
    """``HoodieCleanMetadata``: the content of a completed ``clean`` instant."""

    SCHEMA: ClassVar[str] = "HoodieCleanMetadata"

    start_clean_time: str
    time_taken_in_millis: int
    total_files_deleted: int
    earliest_commit_to_retain: str
    last_completed_commit_timestamp: str = ""
    partition_metadata: Mapping[str, CleanPartitionMetadata]
    version: int | None = CLEAN_PLAN_VERSION
    bootstrap_partition_metadata: Mapping[str, CleanPartitionMetadata] | None = None
    extra_metadata: Mapping[str, str] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanMetadata:
        return cls(
            start_clean_time=record["startCleanTime"],
            time_taken_in_millis=record["timeTakenInMillis"],
            total_files_deleted=record["totalFilesDeleted"],
            earliest_commit_to_retain=record["earliestCommitToRetain"],
            last_completed_commit_timestamp=record.get("lastCompletedCommitTimestamp", ""),
            partition_metadata=_partitions_from_record(record["partitionMetadata"]) or {},
            version=record.get("version", 1),
            bootstrap_partition_metadata=_partitions_from_record(record.get("bootstrapPartitionMetadata")),
            extra_metadata=map_or_none(record.get("extraMetadata")),
        )

    def to_record(self) -> Record:
        return {
            "startCleanTime": self.start_clean_time,
            "timeTakenInMillis": self.time_taken_in_millis,
            "totalFilesDeleted": self.total_files_deleted,
            "earliestCommitToRetain": self.earliest_commit_to_retain,
            "lastCompletedCommitTimestamp": self.last_completed_commit_timestamp,
            "partitionMetadata": {key: value.to_record() for key, value in self.partition_metadata.items()},
            "version": self.version,
            "bootstrapPartitionMetadata": map_or_none(
                self.bootstrap_partition_metadata, lambda value: value.to_record()
            ),
            "extraMetadata": map_or_none(self.extra_metadata),
        }
