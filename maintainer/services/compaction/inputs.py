"""The base files a compaction will read must be complete Parquet files.

A zero-byte or cut base file is read by the merge as an error half-way through the compaction
(leaving an inflight instant behind) or, worse, as no rows at all. Its size alone may still match
the listing (no write stat recorded it in the active timeline), so the ends of the file are read:
two small reads per base file, only for the slices about to be compacted. Planning checks the
slices it schedules and the pending compactions it will execute; apply checks again before its
first write.
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi import payloads
from maintainer.hudi.instant import Instant, State
from maintainer.hudi.integrity import verify_parquet_footers
from maintainer.hudi.loading import LoadedTable
from maintainer.hudi.payloads.compaction import CompactionPlan
from maintainer.services.compaction.model import PlannedOperation


def _in_partition(partition: str, name: str) -> str:
    return f"{partition}/{name}" if partition else name


def operation_base_files(operations: Iterable[PlannedOperation]) -> list[str]:
    """The base files (relative paths) of planned operations (log-only slices have none)."""
    return [_in_partition(op.partition, op.base_file.name) for op in operations if op.base_file]


def plan_base_files(plan: CompactionPlan | None) -> list[str]:
    """The base files a stored compaction plan reads (version 1 full paths cut to names)."""
    found = []
    for op in (plan.operations or ()) if plan else ():
        if op.data_file_path:
            found.append(_in_partition(op.partition_path or "", op.data_file_path.rsplit("/", 1)[-1]))
    return found


def pending_base_files(table: LoadedTable, instants: Iterable[Instant]) -> list[str]:
    """The base files the pending compactions ``instants`` will read."""
    storage, timeline = table.storage, table.snapshot.timeline
    found: list[str] = []
    for instant in instants:
        path = timeline.file_path(instant, State.REQUESTED)
        found += plan_base_files(payloads.decode_compaction_plan(storage.read_bytes(path), storage.uri(path)))
    return found


def verify_inputs(
    table: LoadedTable, operations: Iterable[PlannedOperation], pending: Iterable[Instant]
) -> None:
    """CorruptTableError when a base file the compaction will read is not complete Parquet."""
    paths = operation_base_files(operations) + pending_base_files(table, pending)
    verify_parquet_footers(table.storage, paths)
