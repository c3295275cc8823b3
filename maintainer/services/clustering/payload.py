"""The ``HoodieRequestedReplaceMetadata`` of a clustering: ``<T>.replacecommit.requested`` on
table version 6, ``<T>.clustering.requested`` on 8+, exactly as Hudi's
``PartitionAwareClusteringPlanStrategy`` writes it:

* per slice the base file's full absolute path with the scheme (``file:/abs/path`` locally;
  ``""`` without a base file), the log files' full paths in slice order, ``bootstrapFilePath``
  ``""``, version 1;
* per group the metrics (Hudi's order), ``numOutputFileGroups``, no extra metadata, version 1;
* the strategy: ``SparkSortAndSizeExecutionStrategy``, with ``hoodie.clustering.plan.strategy
  .sort.columns`` only when sort columns are set and ``hoodie.layout.optimize.strategy`` only
  when the layout is not linear;
* the plan: version 1, ``preserveHoodieMetadata`` true, ``extraMetadata`` ``{}``,
  ``missingSchedulePartitions`` a list on 8+ and absent (null) on 6;
* the wrapper: ``operationType`` CLUSTER, ``extraMetadata`` ``{}``, version 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from maintainer.artifact.model import ClusterGroup, ClusterSlice
from maintainer.hudi import payloads
from maintainer.hudi.payloads import (
    ClusteringGroup,
    ClusteringPlan,
    ClusteringStrategy,
    RequestedReplaceMetadata,
    SliceInfo,
)
from maintainer.services.clustering.grouping import METRICS_ORDER
from maintainer.services.clustering.settings import ClusteringSpec

EXECUTION_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
"""hoodie.clustering.execution.strategy.class (default)."""
SORT_COLUMNS_PARAM = "hoodie.clustering.plan.strategy.sort.columns"
LAYOUT_PARAM = "hoodie.layout.optimize.strategy"
PLAN_VERSION = 1
CLUSTER_OPERATION = "CLUSTER"
MISSING_PARTITIONS_SINCE_VERSION = 8
"""Hudi 1.x (table version 8+) writes ``missingSchedulePartitions``; 0.14/0.15 has no such field."""


def _absolute(table_uri: str, partition: str, name: str) -> str:
    root = table_uri.rstrip("/")
    return f"{root}/{partition}/{name}" if partition else f"{root}/{name}"


def slice_info(partition: str, piece: ClusterSlice, table_uri: str) -> SliceInfo:
    base = piece.base_file
    return SliceInfo(
        file_id=piece.file_id,
        partition_path=partition,
        data_file_path=_absolute(table_uri, partition, base.name) if base is not None else "",
        delta_file_paths=tuple(_absolute(table_uri, partition, f.name) for f in piece.log_files),
        bootstrap_file_path="",
        version=1,
    )


def ordered_metrics(metrics: Mapping[str, float]) -> dict[str, float]:
    known = [k for k in METRICS_ORDER if k in metrics]
    return {k: float(metrics[k]) for k in [*known, *sorted(set(metrics) - set(known))]}


def clustering_group(group: ClusterGroup, table_uri: str) -> ClusteringGroup:
    return ClusteringGroup(
        slices=tuple(slice_info(group.partition, s, table_uri) for s in group.slices),
        metrics=ordered_metrics(group.metrics),
        num_output_file_groups=group.num_output_file_groups,
        extra_metadata=None,
        version=1,
    )


def strategy_params(spec: ClusteringSpec) -> dict[str, str]:
    params: dict[str, str] = {}
    if spec.sort_columns:
        params[SORT_COLUMNS_PARAM] = ",".join(spec.sort_columns)
    if spec.layout != "linear":
        params[LAYOUT_PARAM] = spec.layout
    return params


def requested_replace_metadata(
    groups: Sequence[ClusterGroup],
    spec: ClusteringSpec,
    table_base_uri: str,
    table_version: int,
    missing_partitions: Sequence[str] = (),
) -> RequestedReplaceMetadata:
    """The requested payload of a clustering of ``groups`` (in plan order)."""
    with_missing = table_version >= MISSING_PARTITIONS_SINCE_VERSION
    plan = ClusteringPlan(
        input_groups=tuple(clustering_group(g, table_base_uri) for g in groups),
        strategy=ClusteringStrategy(
            strategy_class_name=EXECUTION_STRATEGY, strategy_params=strategy_params(spec), version=1
        ),
        extra_metadata={},
        version=PLAN_VERSION,
        preserve_hoodie_metadata=True,
        missing_schedule_partitions=tuple(missing_partitions) if with_missing else None,
    )
    return RequestedReplaceMetadata(
        operation_type=CLUSTER_OPERATION, clustering_plan=plan, extra_metadata={}, version=1
    )


def encode(metadata: RequestedReplaceMetadata) -> bytes:
    """The bytes of the requested file."""
    return payloads.encode_avro(metadata)


@dataclass(frozen=True, slots=True)
class PlannedSlice:
    """One slice of a clustering plan, as apply and the executor read it back."""

    partition: str
    file_id: str
    base_file: str | None
    """The base file's name in its partition (None: log files only)."""
    log_files: tuple[str, ...]
    """Log file names in slice order."""


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def groups_of(metadata: RequestedReplaceMetadata) -> list[list[PlannedSlice]]:
    """The plan's groups of slices, with file names (paths stripped to the partition's file)."""
    plan = metadata.clustering_plan
    found: list[list[PlannedSlice]] = []
    for group in (plan.input_groups or ()) if plan is not None else ():
        found.append(
            [
                PlannedSlice(
                    partition=piece.partition_path or "",
                    file_id=piece.file_id or "",
                    base_file=_name(piece.data_file_path) if piece.data_file_path else None,
                    log_files=tuple(_name(p) for p in piece.delta_file_paths or ()),
                )
                for piece in group.slices or ()
            ]
        )
    return found
