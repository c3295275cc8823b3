"""Rollback payloads: the plan (``rollback.requested``) and the completed rollback's metadata.

Paths in rollback payloads are absolute (and may carry a scheme such as ``file:``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from maintainer.hudi.payloads.common import InstantInfo
from maintainer.hudi.payloads.records import AvroRecord, avro

ROLLBACK_PLAN_VERSION = 1
ROLLBACK_METADATA_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackRequest(AvroRecord):
    """``HoodieRollbackRequest``: files to delete and log files to append a rollback block to."""

    partition_path: str = field(metadata=avro("partitionPath", required=True))
    file_id: str | None = field(default=None, metadata=avro("fileId"))
    latest_base_instant: str | None = field(default=None, metadata=avro("latestBaseInstant"))
    files_to_be_deleted: tuple[str, ...] = field(default=(), metadata=avro("filesToBeDeleted", missing=()))
    log_blocks_to_be_deleted: Mapping[str, int] | None = field(
        default=None, metadata=avro("logBlocksToBeDeleted")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackPlan(AvroRecord):
    """``HoodieRollbackPlan``: the instant to roll back and the requests that undo it."""

    SCHEMA: ClassVar[str] = "HoodieRollbackPlan"

    instant_to_rollback: InstantInfo | None = field(metadata=avro("instantToRollback"))
    rollback_requests: tuple[RollbackRequest, ...] | None = field(
        default=(), metadata=avro("RollbackRequests")
    )
    version: int | None = field(default=ROLLBACK_PLAN_VERSION, metadata=avro("version", missing=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackPartitionMetadata(AvroRecord):
    """``HoodieRollbackPartitionMetadata``: what a rollback did in one partition."""

    partition_path: str = field(metadata=avro("partitionPath", required=True))
    success_delete_files: tuple[str, ...] = field(
        default=(), metadata=avro("successDeleteFiles", required=True)
    )
    failed_delete_files: tuple[str, ...] = field(
        default=(), metadata=avro("failedDeleteFiles", required=True)
    )
    rollback_log_files: Mapping[str, int] | None = field(default=None, metadata=avro("rollbackLogFiles"))
    log_files_from_failed_commit: Mapping[str, int] | None = field(
        default=None, metadata=avro("logFilesFromFailedCommit")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackMetadata(AvroRecord):
    """``HoodieRollbackMetadata``: the content of a completed ``rollback`` instant."""

    SCHEMA: ClassVar[str] = "HoodieRollbackMetadata"

    start_rollback_time: str = field(metadata=avro("startRollbackTime", required=True))
    time_taken_in_millis: int = field(metadata=avro("timeTakenInMillis", required=True))
    total_files_deleted: int = field(metadata=avro("totalFilesDeleted", required=True))
    commits_rollback: tuple[str, ...] = field(metadata=avro("commitsRollback", required=True))
    partition_metadata: Mapping[str, RollbackPartitionMetadata] = field(
        metadata=avro("partitionMetadata", required=True)
    )
    version: int | None = field(default=ROLLBACK_METADATA_VERSION, metadata=avro("version", missing=1))
    instants_rollback: tuple[InstantInfo, ...] = field(
        default=(), metadata=avro("instantsRollback", missing=())
    )
