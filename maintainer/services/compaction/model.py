"""What the compaction planner produces: operations (one file slice each) with Hudi's metrics
and the reason each was chosen, slices left out and why, and the plan's overall outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from maintainer.hudi.payloads.compaction import (
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_IO_WRITE_MB,
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_LOG_FILES_SIZE,
)
from maintainer.services.compaction.settings import MB
from maintainer.services.compaction.trigger import TriggerDecision


@dataclass(frozen=True, slots=True)
class SliceFile:
    """A base or log file of a slice: its name (in the partition) and size in bytes."""

    name: str
    size: int


@dataclass(frozen=True, slots=True)
class PlannedOperation:
    """One file slice to compact into a new base file."""

    partition: str
    file_id: str
    base_instant: str
    base_file: SliceFile | None
    log_files: tuple[SliceFile, ...]
    metrics: Mapping[str, float]
    reason: str = ""

    @property
    def log_bytes(self) -> int:
        return sum(f.size for f in self.log_files)

    @property
    def input_bytes(self) -> int:
        return self.log_bytes + (self.base_file.size if self.base_file else 0)

    @property
    def expected_output_bytes(self) -> int:
        """What Hudi expects to write: about the base file's size (TOTAL_IO_WRITE_MB)."""
        return self.base_file.size if self.base_file else int(self.metrics[METRIC_TOTAL_IO_WRITE_MB] * MB)

    @property
    def total_io_mb(self) -> float:
        return self.metrics[METRIC_TOTAL_IO_MB]

    def with_reason(self, reason: str) -> PlannedOperation:
        return replace(self, reason=reason)


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
    operations: tuple[PlannedOperation, ...] = ()
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

    candidates: tuple[PlannedOperation, ...] = ()
    skipped: tuple[SkippedSlice, ...] = field(default=())
