"""Requested-replace payload: ``replacecommit.requested`` (v6) and ``clustering.requested`` (v8+).

For clustering it carries the plan: groups of file slices that will be rewritten (and whose file
groups are pending clustering until the replacecommit completes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maintainer.hudi.payloads.common import Record, list_or_none, map_or_none, tuple_or_none


@dataclass(frozen=True, slots=True, kw_only=True)
class SliceInfo:
    """``HoodieSliceInfo``: one file slice of a clustering group."""

    file_id: str | None
    partition_path: str | None = None
    data_file_path: str | None = None
    delta_file_paths: tuple[str, ...] | None = None
    bootstrap_file_path: str | None = None
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> SliceInfo:
        return cls(
            file_id=record.get("fileId"),
            partition_path=record.get("partitionPath"),
            data_file_path=record.get("dataFilePath"),
            delta_file_paths=tuple_or_none(record.get("deltaFilePaths")),
            bootstrap_file_path=record.get("bootstrapFilePath"),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "dataFilePath": self.data_file_path,
            "deltaFilePaths": list_or_none(self.delta_file_paths),
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "bootstrapFilePath": self.bootstrap_file_path,
            "version": self.version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringGroup:
    """``HoodieClusteringGroup``: slices rewritten together into ``num_output_file_groups`` groups."""

    slices: tuple[SliceInfo, ...] | None = None
    metrics: Mapping[str, float] | None = None
    num_output_file_groups: int | None = 1
    extra_metadata: Mapping[str, str] | None = None
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClusteringGroup:
        return cls(
            slices=tuple_or_none(record.get("slices"), SliceInfo.from_record),
            metrics=map_or_none(record.get("metrics")),
            num_output_file_groups=record.get("numOutputFileGroups", 1),
            extra_metadata=map_or_none(record.get("extraMetadata")),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "slices": list_or_none(self.slices, SliceInfo.to_record),
            "metrics": map_or_none(self.metrics, float),
            "numOutputFileGroups": self.num_output_file_groups,
            "extraMetadata": map_or_none(self.extra_metadata),
            "version": self.version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringStrategy:
    """``HoodieClusteringStrategy``: the execution strategy class and its parameters."""

    strategy_class_name: str | None = None
    strategy_params: Mapping[str, str] | None = None
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClusteringStrategy:
        return cls(
            strategy_class_name=record.get("strategyClassName"),
            strategy_params=map_or_none(record.get("strategyParams")),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "strategyClassName": self.strategy_class_name,
            "strategyParams": map_or_none(self.strategy_params),
            "version": self.version,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringPlan:
    """``HoodieClusteringPlan``: the groups of a clustering."""

    input_groups: tuple[ClusteringGroup, ...] | None = None
    strategy: ClusteringStrategy | None = None
    extra_metadata: Mapping[str, str] | None = None
    version: int | None = 1
    preserve_hoodie_metadata: bool | None = None
    missing_schedule_partitions: tuple[str, ...] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClusteringPlan:
        strategy = record.get("strategy")
        return cls(
            input_groups=tuple_or_none(record.get("inputGroups"), ClusteringGroup.from_record),
            strategy=ClusteringStrategy.from_record(strategy) if strategy is not None else None,
            extra_metadata=map_or_none(record.get("extraMetadata")),
            version=record.get("version", 1),
            preserve_hoodie_metadata=record.get("preserveHoodieMetadata"),
            missing_schedule_partitions=tuple_or_none(record.get("missingSchedulePartitions")),
        )

    def to_record(self) -> Record:
        return {
            "inputGroups": list_or_none(self.input_groups, ClusteringGroup.to_record),
            "strategy": self.strategy.to_record() if self.strategy is not None else None,
            "extraMetadata": map_or_none(self.extra_metadata),
            "version": self.version,
            "preserveHoodieMetadata": self.preserve_hoodie_metadata,
            "missingSchedulePartitions": list_or_none(self.missing_schedule_partitions),
        }

    def slices(self) -> tuple[SliceInfo, ...]:
        """Every slice of every group."""
        return tuple(piece for group in self.input_groups or () for piece in group.slices or ())

    def file_groups(self) -> frozenset[tuple[str, str]]:
        """The file groups under clustering, as (partition path, file id) pairs."""
        return frozenset((piece.partition_path or "", piece.file_id or "") for piece in self.slices())


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestedReplaceMetadata:
    """``HoodieRequestedReplaceMetadata``: the operation (``CLUSTER``, ``INSERT_OVERWRITE``…) and plan."""

    SCHEMA: ClassVar[str] = "HoodieRequestedReplaceMetadata"

    operation_type: str | None = None
    clustering_plan: ClusteringPlan | None = None
    extra_metadata: Mapping[str, str] | None = None
    version: int | None = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RequestedReplaceMetadata:
        plan = record.get("clusteringPlan")
        return cls(
            operation_type=record.get("operationType"),
            clustering_plan=ClusteringPlan.from_record(plan) if plan is not None else None,
            extra_metadata=map_or_none(record.get("extraMetadata")),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        plan = self.clustering_plan
        return {
            "operationType": self.operation_type,
            "clusteringPlan": plan.to_record() if plan is not None else None,
            "extraMetadata": map_or_none(self.extra_metadata),
            "version": self.version,
        }

    def file_groups(self) -> frozenset[tuple[str, str]]:
        """The file groups the clustering plan rewrites (empty without a plan)."""
        return self.clustering_plan.file_groups() if self.clustering_plan is not None else frozenset()
