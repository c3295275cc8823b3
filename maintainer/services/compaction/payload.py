"""The ``HoodieCompactionPlan`` written into ``.compaction.requested``: version 2 (file names
relative to the partition), Hudi's metrics per operation, the plan id in ``extraMetadata``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from maintainer.artifact.model import CompactSlice
from maintainer.hudi import payloads
from maintainer.hudi.payloads import CompactionOperation, CompactionPlan
from maintainer.services.common.ledger import PLAN_ID_KEY

METRICS_ORDER = (
    "TOTAL_LOG_FILES",
    "TOTAL_IO_MB",
    "TOTAL_IO_READ_MB",
    "TOTAL_LOG_FILES_SIZE",
    "TOTAL_IO_WRITE_MB",
)
"""The order real Hudi plans hold the metrics in (Java HashMap order); any others follow,
sorted. A fixed order keeps the payload bytes independent of how the metrics were stored
(plan.json sorts keys)."""


def ordered_metrics(metrics: Mapping[str, float]) -> dict[str, float]:
    known = [k for k in METRICS_ORDER if k in metrics]
    return {k: float(metrics[k]) for k in [*known, *sorted(set(metrics) - set(known))]}


def compaction_operation(op: CompactSlice) -> CompactionOperation:
    return CompactionOperation(
        base_instant_time=op.base_instant,
        file_id=op.file_id,
        partition_path=op.partition,
        data_file_path=op.base_file.name if op.base_file else None,
        delta_file_paths=tuple(f.name for f in op.log_files),
        metrics=ordered_metrics(op.metrics),
        bootstrap_file_path=None,
    )


def build_compaction_plan(operations: Sequence[CompactSlice], plan_id: str | None) -> CompactionPlan:
    """The plan payload, operations in the strategy's order."""
    return CompactionPlan(
        operations=tuple(compaction_operation(op) for op in operations),
        extra_metadata={PLAN_ID_KEY: plan_id} if plan_id else {},
        version=payloads.COMPACTION_PLAN_VERSION,
        strategy=None,
        preserve_hoodie_metadata=False,
        missing_schedule_partitions=(),
    )


def encode_compaction_plan(operations: Sequence[CompactSlice], plan_id: str | None) -> bytes:
    """The bytes of ``<instant>.compaction.requested``."""
    return payloads.encode_avro(build_compaction_plan(operations, plan_id))
