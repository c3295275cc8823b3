"""The files a compaction will read must be intact.

A zero-byte or cut base file is read by the merge as an error half-way through the compaction
(leaving an inflight instant behind) or, worse, as no rows at all. Its size alone may still match
the listing (no write stat recorded it in the active timeline), so the ends of the file are read:
two small reads per base file, only for the slices about to be compacted. Planning checks the
slices it schedules and the pending compactions it will execute; apply checks again before its
first write.

Apply also reads the log files of those slices before its first write: a corrupt block inside
the length their deltacommit committed is damage (Hudi would skip its records, and the clean
after the compaction would delete the only copy). Planning does not read logs (their sizes are
checked against the write stats when the table is opened), to keep plan time a listing's.
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.artifact.model import CompactSlice
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.integrity import verify_compaction_reads
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.payloads.compaction import CompactionPlan
from maintainer.hudi.table.state import TableState


def _in_partition(partition: str, name: str) -> str:
    return f"{partition}/{name}" if partition else name


def operation_base_files(operations: Iterable[CompactSlice]) -> list[str]:
    """The base files (relative paths) of planned operations (log-only slices have none)."""
    return [_in_partition(op.partition, op.base_file.name) for op in operations if op.base_file]


def operation_log_files(operations: Iterable[CompactSlice]) -> list[str]:
    return [_in_partition(op.partition, log.name) for op in operations for log in op.log_files]


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def plan_files(plan: CompactionPlan | None) -> tuple[list[str], list[str]]:
    """The base and log files a stored compaction plan reads (version 1 full paths cut to names)."""
    bases: list[str] = []
    logs: list[str] = []
    for op in (plan.operations or ()) if plan else ():
        partition = op.partition_path or ""
        if op.data_file_path:
            bases.append(_in_partition(partition, _name(op.data_file_path)))
        logs += [_in_partition(partition, _name(path)) for path in op.delta_file_paths or ()]
    return bases, logs


def pending_files(table: TableState, instants: Iterable[Instant]) -> tuple[list[str], list[str]]:
    """The base and log files the pending compactions ``instants`` will read."""
    storage, timeline = table.storage, table.snapshot.timeline
    bases: list[str] = []
    logs: list[str] = []
    for instant in instants:
        path = timeline.file_path(instant, State.REQUESTED)
        plan = payloads.decode_compaction_plan(storage.read_bytes(path), storage.uri(path))
        more_bases, more_logs = plan_files(plan)
        bases += more_bases
        logs += more_logs
    return bases, logs


def verify_inputs(
    table: TableState,
    operations: Iterable[CompactSlice],
    pending: Iterable[Instant],
    read_logs: bool = False,
) -> None:
    """CorruptTableError when a base file the compaction will read is not complete Parquet, or
    (``read_logs``: apply) a log file it reads is damaged within its committed length."""
    chosen = list(operations)
    pending_bases, pending_logs = pending_files(table, pending)
    bases = operation_base_files(chosen) + pending_bases
    logs = operation_log_files(chosen) + pending_logs
    verify_compaction_reads(table.storage, bases, logs, table.committed if read_logs else None)
