"""The compaction node's records: the file slices to compact (the planner's operations, as
approved), pending compactions to execute, and the node's effect.

A ``CompactSlice`` is the one model of "a slice to compact": the planner makes it, plan.json
stores it, apply rebuilds the ``HoodieCompactionPlan`` payload from the approved ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from maintainer.artifact.model.records import PlanRecord
from maintainer.hudi.payloads.compaction import METRIC_TOTAL_IO_MB, METRIC_TOTAL_IO_WRITE_MB

_MB = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class SliceFile(PlanRecord):
    """A base or log file of a slice: its name (in the partition) and size in bytes."""

    name: str
    size: int


def slice_target(partition: str, file_id: str) -> str:
    """How a file slice is named in a plan: ``<partition>/<file id>`` (the file id alone in a
    non-partitioned table)."""
    return f"{partition}/{file_id}" if partition else file_id


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactSlice(PlanRecord):
    """One file slice to compact into a new base file, with Hudi's metrics and why."""

    kind: Literal["compact_slice"] = "compact_slice"
    partition: str
    file_id: str
    base_instant: str
    base_file: SliceFile | None
    log_files: tuple[SliceFile, ...]
    metrics: Mapping[str, float]
    reason: str = ""

    @property
    def target(self) -> str:
        return slice_target(self.partition, self.file_id)

    @property
    def log_bytes(self) -> int:
        return sum(f.size for f in self.log_files)

    @property
    def input_bytes(self) -> int:
        return self.log_bytes + (self.base_file.size if self.base_file else 0)

    @property
    def expected_output_bytes(self) -> int:
        """What Hudi expects to write: about the base file's size (TOTAL_IO_WRITE_MB)."""
        return self.base_file.size if self.base_file else int(self.metrics[METRIC_TOTAL_IO_WRITE_MB] * _MB)

    @property
    def total_io_mb(self) -> float:
        return self.metrics[METRIC_TOTAL_IO_MB]

    def with_reason(self, reason: str) -> CompactSlice:
        return replace(self, reason=reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutePendingCompaction(PlanRecord):
    """A compaction already requested in the table: executed first, as Hudi does, only if its
    ``.compaction.requested`` is still these bytes (``sha256``)."""

    kind: Literal["execute_pending_compaction"] = "execute_pending_compaction"
    target: str
    reason: str
    sha256: str = ""
    """Of its ``.compaction.requested``, as reviewed (empty: a plan of an earlier version, which
    recorded none; such a pending compaction is refused at apply)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedSliceRecord(PlanRecord):
    """A file slice with log files the compaction leaves alone, and why."""

    target: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferredSlice(PlanRecord):
    """A file slice the fleet's compaction budget leaves for a later plan: it was worth less
    per byte read than the slices taken."""

    target: str
    input_bytes: int
    log_bytes: int
    value: float
    """Log bytes a compaction removes from reads per byte it reads (log_bytes / input_bytes)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionEffect(PlanRecord):
    kind: Literal["compaction"] = "compaction"
    pending_instants: tuple[str, ...]
    slices: int
    log_files: int
    input_bytes: int
    expected_output_bytes: int
    strategy: str
    skipped: tuple[SkippedSliceRecord, ...]
    read_amplification_before: float | None = None
    """Log bytes over base bytes of the table's latest file slices now (None: no base bytes)."""
    read_amplification_after: float | None = None
    """The same once this compaction's slices are compacted (their logs gone, their base files
    about the expected output)."""
    deferred: tuple[DeferredSlice, ...] = ()
    """Slices the fleet's compaction budget leaves for later (``budget:``, ``plan --budget-bytes``)."""
