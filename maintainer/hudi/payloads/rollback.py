"""Rollback payloads: the plan (``rollback.requested``) and the completed rollback's metadata.

Paths in rollback payloads are absolute (and may carry a scheme such as ``file:``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maintainer.hudi.payloads.common import InstantInfo, Record, list_or_none, map_or_none, tuple_or_none

ROLLBACK_PLAN_VERSION = 1
ROLLBACK_METADATA_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackRequest:
    """``HoodieRollbackRequest``: files to delete and log files to append a rollback block to."""

    partition_path: str
    file_id: str | None = None
    latest_base_instant: str | None = None
    files_to_be_deleted: tuple[str, ...] = ()
    log_blocks_to_be_deleted: Mapping[str, int] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RollbackRequest:
        return cls(
            partition_path=record["partitionPath"],
            file_id=record.get("fileId"),
            latest_base_instant=record.get("latestBaseInstant"),
            files_to_be_deleted=tuple(record.get("filesToBeDeleted", ())),
            log_blocks_to_be_deleted=map_or_none(record.get("logBlocksToBeDeleted")),
        )

    def to_record(self) -> Record:
        return {
            "partitionPath": self.partition_path,
            "fileId": self.file_id,
            "latestBaseInstant": self.latest_base_instant,
            "filesToBeDeleted": list(self.files_to_be_deleted),
            "logBlocksToBeDeleted": map_or_none(self.log_blocks_to_be_deleted),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackPlan:
    """``HoodieRollbackPlan``: the instant to roll back and the requests that undo it."""

    SCHEMA: ClassVar[str] = "HoodieRollbackPlan"

    instant_to_rollback: InstantInfo | None
    rollback_requests: tuple[RollbackRequest, ...] | None = ()
    version: int | None = ROLLBACK_PLAN_VERSION

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RollbackPlan:
        instant = record.get("instantToRollback")
        return cls(
            instant_to_rollback=InstantInfo.from_record(instant) if instant is not None else None,
            rollback_requests=tuple_or_none(record.get("RollbackRequests"), RollbackRequest.from_record),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        instant = self.instant_to_rollback
        return {
            "instantToRollback": instant.to_record() if instant is not None else None,
            "RollbackRequests": list_or_none(self.rollback_requests, RollbackRequest.to_record),
            "version": self.version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackPartitionMetadata:
    """``HoodieRollbackPartitionMetadata``: what a rollback did in one partition."""

    partition_path: str
    success_delete_files: tuple[str, ...] = ()
    failed_delete_files: tuple[str, ...] = ()
    rollback_log_files: Mapping[str, int] | None = None
    log_files_from_failed_commit: Mapping[str, int] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RollbackPartitionMetadata:
        return cls(
            partition_path=record["partitionPath"],
            success_delete_files=tuple(record["successDeleteFiles"]),
            failed_delete_files=tuple(record["failedDeleteFiles"]),
            rollback_log_files=map_or_none(record.get("rollbackLogFiles")),
            log_files_from_failed_commit=map_or_none(record.get("logFilesFromFailedCommit")),
        )

    def to_record(self) -> Record:
        return {
            "partitionPath": self.partition_path,
            "successDeleteFiles": list(self.success_delete_files),
            "failedDeleteFiles": list(self.failed_delete_files),
            "rollbackLogFiles": map_or_none(self.rollback_log_files),
            "logFilesFromFailedCommit": map_or_none(self.log_files_from_failed_commit),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackMetadata:
    """``HoodieRollbackMetadata``: the content of a completed ``rollback`` instant."""

    SCHEMA: ClassVar[str] = "HoodieRollbackMetadata"

    start_rollback_time: str
    time_taken_in_millis: int
    total_files_deleted: int
    commits_rollback: tuple[str, ...]
    partition_metadata: Mapping[str, RollbackPartitionMetadata]
    version: int | None = ROLLBACK_METADATA_VERSION
    instants_rollback: tuple[InstantInfo, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RollbackMetadata:
        return cls(
            start_rollback_time=record["startRollbackTime"],
            time_taken_in_millis=record["timeTakenInMillis"],
            total_files_deleted=record["totalFilesDeleted"],
            commits_rollback=tuple(record["commitsRollback"]),
            partition_metadata={
                key: RollbackPartitionMetadata.from_record(value)
                for key, value in record["partitionMetadata"].items()
            },
            version=record.get("version", 1),
            instants_rollback=tuple(InstantInfo.from_record(i) for i in record.get("instantsRollback", ())),
        )

    def to_record(self) -> Record:
        return {
            "startRollbackTime": self.start_rollback_time,
            "timeTakenInMillis": self.time_taken_in_millis,
            "totalFilesDeleted": self.total_files_deleted,
            "commitsRollback": list(self.commits_rollback),
            "partitionMetadata": {key: value.to_record() for key, value in self.partition_metadata.items()},
            "version": self.version,
            "instantsRollback": [instant.to_record() for instant in self.instants_rollback],
        }
