"""Clustering plans as a Hudi planner would write them, for tests of the clustering executor:
one group per partition of its latest slices (absolute paths with the ``file:`` scheme, as
Hudi's ``getFileSliceInfo`` records them)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from maintainer.hudi.payloads import (
    ClusteringGroup,
    ClusteringPlan,
    ClusteringStrategy,
    RequestedReplaceMetadata,
    SliceInfo,
)
from maintainer.hudi.table.state import TableState, open_table

EXECUTION_STRATEGY = "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
SORT_COLUMNS = "hoodie.clustering.plan.strategy.sort.columns"
LAYOUT = "hoodie.layout.optimize.strategy"


def _absolute(path: Path, relative: str) -> str:
    return f"file:{path.resolve() / relative}"


def slice_info(path: Path, table: TableState, partition: str, file_id: str) -> SliceInfo:
    (piece,) = [s for s in table.view.latest_slices() if (s.partition, s.file_id) == (partition, file_id)]
    base = piece.base_file
    return SliceInfo(
        file_id=file_id,
        partition_path=partition,
        data_file_path=_absolute(path, base.path) if base is not None else "",
        delta_file_paths=tuple(_absolute(path, log.path) for log in piece.log_files),
        bootstrap_file_path="",
    )


def clustering_plan(
    path: Path,
    outputs: int = 1,
    sort_columns: str | None = None,
    layout: str | None = None,
    partitions: Mapping[str, int] | None = None,
) -> RequestedReplaceMetadata:
    """A plan clustering every latest slice of each partition into ``outputs`` file groups
    (``partitions``: only these partitions, with their own output counts)."""
    table = open_table(str(path))
    by_partition: dict[str, list[str]] = {}
    for piece in table.view.latest_slices():
        by_partition.setdefault(piece.partition, []).append(piece.file_id)
    groups = []
    for partition, file_ids in sorted(by_partition.items()):
        if partitions is not None and partition not in partitions:
            continue
        count = partitions[partition] if partitions is not None else outputs
        slices = tuple(slice_info(path, table, partition, f) for f in sorted(file_ids))
        groups.append(ClusteringGroup(slices=slices, metrics={}, num_output_file_groups=count, version=1))
    params = {k: v for k, v in ((SORT_COLUMNS, sort_columns), (LAYOUT, layout)) if v}
    plan = ClusteringPlan(
        input_groups=tuple(groups),
        strategy=ClusteringStrategy(strategy_class_name=EXECUTION_STRATEGY, strategy_params=params),
        extra_metadata={},
        preserve_hoodie_metadata=True,
        missing_schedule_partitions=() if table.snapshot.config.version >= 8 else None,
    )
    return RequestedReplaceMetadata(operation_type="CLUSTER", clustering_plan=plan, extra_metadata={})
