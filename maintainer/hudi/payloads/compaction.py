"""Compaction payloads: the plan of ``compaction.requested`` (and ``logcompaction.requested``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maintainer.hudi.payloads.common import Record, list_or_none, map_or_none, tuple_or_none

COMPACTION_PLAN_VERSION = 2
"""Plan version 2 stores file names relative to the partition (version 1 stored full paths)."""

METRIC_TOTAL_LOG_FILES = "TOTAL_LOG_FILES"
METRIC_TOTAL_LOG_FILES_SIZE = "TOTAL_LOG_FILES_SIZE"
METRIC_TOTAL_IO_READ_MB = "TOTAL_IO_READ_MB"
METRIC_TOTAL_IO_WRITE_MB = "TOTAL_IO_WRITE_MB"
METRIC_TOTAL_IO_MB = "TOTAL_IO_MB"


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionOperation:
    """``HoodieCompactionOperation``: one file slice to compact (base file and log files by name)."""

    base_instant_time: str | None
    file_id: str | None
    partition_path: str | None = None
    data_file_path: str | None = None
    delta_file_paths: tuple[str, ...] | None = None
    metrics: Mapping[str, float] | None = None
    bootstrap_file_path: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionOperation:
        return cls(
            base_instant_time=record.get("baseInstantTime"),
            file_id=record.get("fileId"),
            partition_path=record.get("partitionPath"),
            data_file_path=record.get("dataFilePath"),
            delta_file_paths=tuple_or_none(record.get("deltaFilePaths")),
            metrics=map_or_none(record.get("metrics")),
            bootstrap_file_path=record.get("bootstrapFilePath"),
        )

    def to_record(self) -> Record:
        return {
            "baseInstantTime": self.base_instant_time,
            "deltaFilePaths": list_or_none(self.delta_file_paths),
            "dataFilePath": self.data_file_path,
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "metrics": map_or_none(self.metrics, float),
            "bootstrapFilePath": self.bootstrap_file_path,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionStrategy:
    """``HoodieCompactionStrategy``: the compactor class and its parameters."""

    compactor_class_name: str | None = None
    strategy_params: Mapping[str, str] | None = None
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionStrategy:
        return cls(
            compactor_class_name=record.get("compactorClassName"),
            strategy_params=map_or_none(record.get("strategyParams")),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "compactorClassName": self.compactor_class_name,
            "strategyParams": map_or_none(self.strategy_params),
            "version": self.version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPlan:
    """``HoodieCompactionPlan``: the operations of one compaction."""

    SCHEMA: ClassVar[str] = "HoodieCompactionPlan"

    operations: tuple[CompactionOperation, ...] | None = None
    extra_metadata: Mapping[str, str] | None = None
    version: int | None = COMPACTION_PLAN_VERSION
    strategy: CompactionStrategy | None = None
    preserve_hoodie_metadata: bool | None = False
    missing_schedule_partitions: tuple[str, ...] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionPlan:
        strategy = record.get("strategy")
        return cls(
            operations=tuple_or_none(record.get("operations"), CompactionOperation.from_record),
            extra_metadata=map_or_none(record.get("extraMetadata")),
            version=record.get("version", 1),
            strategy=CompactionStrategy.from_record(strategy) if strategy is not None else None,
            preserve_hoodie_metadata=record.get("preserveHoodieMetadata", False),
            missing_schedule_partitions=tuple_or_none(record.get("missingSchedulePartitions")),
        )

    def to_record(self) -> Record:
        return {
            "operations": list_or_none(self.operations, CompactionOperation.to_record),
            "extraMetadata": map_or_none(self.extra_metadata),
            "version": self.version,
            "strategy": self.strategy.to_record() if self.strategy is not None else None,
            "preserveHoodieMetadata": self.preserve_hoodie_metadata,
            "missingSchedulePartitions": list_or_none(self.missing_schedule_partitions),
        }
