"""Requested-replace payload: ``replacecommit.requested`` (v6) and ``clustering.requested`` (v8+).

For clustering it carries the plan: groups of file slices that will be rewritten (and whose file
groups are pending clustering until the replacecommit completes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from maintainer.hudi.payloads.common import float_values
from maintainer.hudi.payloads.records import AvroRecord, avro


@dataclass(frozen=True, slots=True, kw_only=True)
class SliceInfo(AvroRecord):
    """``HoodieSliceInfo``: one file slice of a clustering group."""

    file_id: str | None = field(metadata=avro("fileId"))
    partition_path: str | None = field(default=None, metadata=avro("partitionPath"))
    data_file_path: str | None = field(default=None, metadata=avro("dataFilePath"))
    delta_file_paths: tuple[str, ...] | None = field(default=None, metadata=avro("deltaFilePaths"))
    bootstrap_file_path: str | None = field(default=None, metadata=avro("bootstrapFilePath"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringGroup(AvroRecord):
    """``HoodieClusteringGroup``: slices rewritten together into ``num_output_file_groups`` groups."""

    slices: tuple[SliceInfo, ...] | None = field(default=None, metadata=avro("slices"))
    metrics: Mapping[str, float] | None = field(default=None, metadata=avro("metrics", encode=float_values))
    num_output_file_groups: int | None = field(default=1, metadata=avro("numOutputFileGroups", missing=1))
    extra_metadata: Mapping[str, str] | None = field(default=None, metadata=avro("extraMetadata"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringStrategy(AvroRecord):
    """``HoodieClusteringStrategy``: the execution strategy class and its parameters."""

    strategy_class_name: str | None = field(default=None, metadata=avro("strategyClassName"))
    strategy_params: Mapping[str, str] | None = field(default=None, metadata=avro("strategyParams"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringPlan(AvroRecord):
    """``HoodieClusteringPlan``: the groups of a clustering."""

    input_groups: tuple[ClusteringGroup, ...] | None = field(default=None, metadata=avro("inputGroups"))
    strategy: ClusteringStrategy | None = field(default=None, metadata=avro("strategy"))
    extra_metadata: Mapping[str, str] | None = field(default=None, metadata=avro("extraMetadata"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))
    preserve_hoodie_metadata: bool | None = field(default=None, metadata=avro("preserveHoodieMetadata"))
    missing_schedule_partitions: tuple[str, ...] | None = field(
        default=None, metadata=avro("missingSchedulePartitions")
    )

    def slices(self) -> tuple[SliceInfo, ...]:
        """Every slice of every group."""
        return tuple(piece for group in self.input_groups or () for piece in group.slices or ())

    def file_groups(self) -> frozenset[tuple[str, str]]:
        """The file groups under clustering, as (partition path, file id) pairs."""
        return frozenset((piece.partition_path or "", piece.file_id or "") for piece in self.slices())


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestedReplaceMetadata(AvroRecord):
    """``HoodieRequestedReplaceMetadata``: the operation (``CLUSTER``, ``INSERT_OVERWRITE``…) and plan."""

    SCHEMA: ClassVar[str] = "HoodieRequestedReplaceMetadata"

    operation_type: str | None = field(default=None, metadata=avro("operationType"))
    clustering_plan: ClusteringPlan | None = field(default=None, metadata=avro("clusteringPlan"))
    extra_metadata: Mapping[str, str] | None = field(default=None, metadata=avro("extraMetadata"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))

    def file_groups(self) -> frozenset[tuple[str, str]]:
        """The file groups the clustering plan rewrites (empty without a plan)."""
        return self.clustering_plan.file_groups() if self.clustering_plan is not None else frozenset()
