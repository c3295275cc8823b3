"""Compaction payloads: the plan of ``compaction.requested`` (and ``logcompaction.requested``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from maintainer.hudi.payloads.common import float_values
from maintainer.hudi.payloads.records import AvroRecord, avro

COMPACTION_PLAN_VERSION = 2
"""Plan version 2 stores file names relative to the partition (version 1 stored full paths)."""

METRIC_TOTAL_LOG_FILES = "TOTAL_LOG_FILES"
METRIC_TOTAL_LOG_FILES_SIZE = "TOTAL_LOG_FILES_SIZE"
METRIC_TOTAL_IO_READ_MB = "TOTAL_IO_READ_MB"
METRIC_TOTAL_IO_WRITE_MB = "TOTAL_IO_WRITE_MB"
METRIC_TOTAL_IO_MB = "TOTAL_IO_MB"


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionOperation(AvroRecord):
    """``HoodieCompactionOperation``: one file slice to compact (base file and log files by name)."""

    base_instant_time: str | None = field(metadata=avro("baseInstantTime"))
    file_id: str | None = field(metadata=avro("fileId"))
    partition_path: str | None = field(default=None, metadata=avro("partitionPath"))
    data_file_path: str | None = field(default=None, metadata=avro("dataFilePath"))
    delta_file_paths: tuple[str, ...] | None = field(default=None, metadata=avro("deltaFilePaths"))
    metrics: Mapping[str, float] | None = field(default=None, metadata=avro("metrics", encode=float_values))
    bootstrap_file_path: str | None = field(default=None, metadata=avro("bootstrapFilePath"))


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionStrategy(AvroRecord):
    """``HoodieCompactionStrategy``: the compactor class and its parameters."""

    compactor_class_name: str | None = field(default=None, metadata=avro("compactorClassName"))
    strategy_params: Mapping[str, str] | None = field(default=None, metadata=avro("strategyParams"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPlan(AvroRecord):
    """``HoodieCompactionPlan``: the operations of one compaction."""

    SCHEMA: ClassVar[str] = "HoodieCompactionPlan"

    operations: tuple[CompactionOperation, ...] | None = field(default=None, metadata=avro("operations"))
    extra_metadata: Mapping[str, str] | None = field(default=None, metadata=avro("extraMetadata"))
    version: int | None = field(default=COMPACTION_PLAN_VERSION, metadata=avro("version", missing=1))
    strategy: CompactionStrategy | None = field(default=None, metadata=avro("strategy"))
    preserve_hoodie_metadata: bool | None = field(
        default=False, metadata=avro("preserveHoodieMetadata", missing=False)
    )
    missing_schedule_partitions: tuple[str, ...] | None = field(
        default=None, metadata=avro("missingSchedulePartitions")
    )
