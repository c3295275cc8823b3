"""What the compaction planner produces: operations (one file slice each) with Hudi's metrics
and the reason each was chosen, slices left out and why, and the plan's overall outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from maintainer.artifact.model import CompactSlice, SliceFile
from maintainer.hudi.payloads.compaction import (
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_IO_WRITE_MB,
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_LOG_FILES_SIZE,
)
from maintainer.services.compaction.settings import MB
from maintainer.services.compaction.trigger import TriggerDecision


def capture_metrics(
    base: SliceFile | None, logs: tuple[SliceFile, ...], parquet_max_file_size: int
) -> dict[str, float]:
    """Hudi's ``captureMetrics``: sizes in whole MB (integer division), log size in bytes."""
    log_size = sum(f.size for f in logs)
    base_size = base.size if base else 0
    read_mb = (base_size + log_size) // MB
    write_mb = (base_size if base else parquet_max_file_size) // MB
    return {
        METRIC_TOTAL_IO_READ_MB: float(read_mb),
        METRIC_TOTAL_IO_WRITE_MB: float(write_mb),
        METRIC_TOTAL_IO_MB: float(read_mb + write_mb),
        METRIC_TOTAL_LOG_FILES_SIZE: float(log_size),
        METRIC_TOTAL_LOG_FILES: float(len(logs)),
    }


@dataclass(frozen=True, slots=True)
class SkippedSlice:
    """A file group with log files that this compaction leaves alone, and why."""

    partition: str
    file_id: str
    reason: str


class PlanStatus(str, Enum):
    SCHEDULE = "schedule"
    """A new compaction with the operations below."""
    EXECUTE_PENDING = "execute_pending"
    """The table already has pending compactions: execute them, schedule nothing."""
    NO_OP = "no_op"
    BLOCKED = "blocked"


@dataclass(frozen=True)
class CompactionPlanResult:
    status: PlanStatus
    instant_time: str
    reasons: tuple[str, ...]
    trigger: TriggerDecision | None = None
    operations: tuple[CompactSlice, ...] = ()
    skipped: tuple[SkippedSlice, ...] = ()
    pending_instants: tuple[str, ...] = ()
    strategy_class: str = ""

    @property
    def has_changes(self) -> bool:
        return self.status in (PlanStatus.SCHEDULE, PlanStatus.EXECUTE_PENDING)

    @property
    def input_bytes(self) -> int:
        return sum(op.input_bytes for op in self.operations)

    @property
    def expected_output_bytes(self) -> int:
        return sum(op.expected_output_bytes for op in self.operations)

    @property
    def log_files(self) -> int:
        return sum(len(op.log_files) for op in self.operations)

    def effect(self) -> dict[str, object]:
        """Totals for plan.json / plan.md."""
        return {
            "status": self.status.value,
            "instant": self.instant_time,
            "operations": len(self.operations),
            "log_files": self.log_files,
            "input_bytes": self.input_bytes,
            "expected_output_bytes": self.expected_output_bytes,
            "pending_instants": list(self.pending_instants),
            "skipped": len(self.skipped),
        }


@dataclass(frozen=True)
class OperationsFound:
    """The slices eligible for compaction before the strategy orders and cuts them."""

    candidates: tuple[CompactSlice, ...] = ()
    skipped: tuple[SkippedSlice, ...] = field(default=())
