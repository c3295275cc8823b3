"""The metadata table compaction's plan, as Hudi's metadata writer schedules it
(``compactIfNecessary``): the trigger (``hoodie.metadata.compact.max.delta.commits``, the
deltacommits requested after the latest compaction), the instant (one millisecond before the
earliest data instant pending on the data table but completed on the metadata table, else a new
time) and the operations (``UnBoundedCompactionStrategy``: the latest slice of every file group
with log files completed before the instant, groups under a pending compaction left out)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from maintainer.errors import CorruptFileError
from maintainer.hudi.file_groups.filemodel import BaseFile, FileGroup, LogFile
from maintainer.hudi.instants.instant import (
    Action,
    Instant,
    format_instant_time,
    parse_instant_time,
)
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads.compaction import (
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_IO_WRITE_MB,
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_LOG_FILES_SIZE,
    CompactionOperation,
    CompactionPlan,
)
from maintainer.hudi.table.state import TableState

DEFAULT_MAX_DELTA_COMMITS = 10
"""``hoodie.metadata.compact.max.delta.commits``."""
MB = 1024 * 1024
PARQUET_MAX_FILE_SIZE = 120 * MB
"""``hoodie.parquet.max.file.size``: what ``captureMetrics`` counts as written for a slice
without a base file (the metadata table's write config keeps the default)."""


@dataclass(frozen=True)
class CompactionTrigger:
    fires: bool
    delta_commits: int
    max_delta_commits: int
    since: str | None
    """The latest completed compaction (None: never compacted)."""

    @property
    def reason(self) -> str:
        since = f"since the last compaction {self.since}" if self.since else "and never compacted"
        verdict = "compaction due" if self.fires else "no compaction yet"
        return (
            f"{self.delta_commits} of {self.max_delta_commits} metadata deltacommits {since} "
            f"(hoodie.metadata.compact.max.delta.commits): {verdict}"
        )


def last_compaction(timeline: Timeline) -> Instant | None:
    return timeline.last_completed(Action.COMPACTION, Action.COMMIT)


def deltacommits_since_compaction(timeline: Timeline) -> int:
    """Completed deltacommits after the latest completed compaction (all of them without one)."""
    last = last_compaction(timeline)
    after = last.timestamp if last is not None else ""
    return sum(
        1
        for instant in timeline.completed()
        if instant.action is Action.DELTA_COMMIT and instant.timestamp > after
    )


def evaluate_trigger(
    timeline: Timeline, max_delta_commits: int = DEFAULT_MAX_DELTA_COMMITS
) -> CompactionTrigger:
    count = deltacommits_since_compaction(timeline)
    last = last_compaction(timeline)
    return CompactionTrigger(
        count >= max_delta_commits, count, max_delta_commits, last.timestamp if last else None
    )


def compaction_instant_time(data_timeline: Timeline, mdt_timeline: Timeline, now: str) -> str:
    """One millisecond before the earliest data instant pending on the data table but completed
    on the metadata table; else ``now`` (a new time past everything on the metadata timeline)."""
    completed_on_mdt = {i.timestamp for i in mdt_timeline.completed()}
    held = [i.timestamp for i in data_timeline.pending() if i.timestamp in completed_on_mdt]
    if held:
        return format_instant_time(parse_instant_time(min(held)) - timedelta(milliseconds=1))
    latest = mdt_timeline.max_instant_time()
    if latest is not None and now <= latest:
        return format_instant_time(parse_instant_time(latest) + timedelta(milliseconds=1))
    return now


@dataclass(frozen=True)
class FileGroupCompaction:
    """One operation: the file group's latest slice, with the log files the compaction takes."""

    partition: str
    file_id: str
    base_instant: str
    base_file: BaseFile | None
    log_files: tuple[LogFile, ...]

    def operation(self) -> CompactionOperation:
        return CompactionOperation(
            base_instant_time=self.base_instant,
            file_id=self.file_id,
            partition_path=self.partition,
            data_file_path=self.base_file.name if self.base_file is not None else None,
            delta_file_paths=tuple(log.name for log in self.log_files),
            metrics=self.metrics(),
        )

    def metrics(self) -> dict[str, float]:
        """Hudi's ``captureMetrics`` (whole MB, log size in bytes)."""
        log_size = sum(log.size for log in self.log_files)
        base_size = self.base_file.size if self.base_file is not None else 0
        read_mb = (base_size + log_size) // MB
        write_mb = (base_size if self.base_file is not None else PARQUET_MAX_FILE_SIZE) // MB
        return {
            METRIC_TOTAL_LOG_FILES: float(len(self.log_files)),
            METRIC_TOTAL_IO_MB: float(read_mb + write_mb),
            METRIC_TOTAL_IO_READ_MB: float(read_mb),
            METRIC_TOTAL_LOG_FILES_SIZE: float(log_size),
            METRIC_TOTAL_IO_WRITE_MB: float(write_mb),
        }


def _operation_of(group: FileGroup, timeline: Timeline, instant: str) -> FileGroupCompaction | None:
    latest = group.latest_slice
    if latest is None:
        return None
    logs = tuple(
        log
        for log in latest.log_files
        if (done := timeline.completion_time(log.instant_time)) is not None and done < instant
    )
    if not logs:
        return None
    return FileGroupCompaction(group.partition, group.file_id, latest.base_instant, latest.base_file, logs)


def compaction_operations(state: TableState, instant: str) -> tuple[FileGroupCompaction, ...]:
    """The operations of a compaction of the metadata table ``state`` at ``instant``."""
    timeline = state.snapshot.timeline
    pending = state.view.inputs.pending_compaction
    found = []
    for partition in sorted(state.view.partitions):
        for group in sorted(state.view.file_groups(partition), key=lambda g: g.file_id):
            if (group.partition, group.file_id) in pending:
                continue
            operation = _operation_of(group, timeline, instant)
            if operation is not None:
                found.append(operation)
    return tuple(found)


def compaction_plan(operations: Sequence[FileGroupCompaction]) -> CompactionPlan:
    return CompactionPlan(
        operations=tuple(op.operation() for op in operations),
        extra_metadata={},
        strategy=None,
        missing_schedule_partitions=(),
    )


def operations_of_plan(
    state: TableState, plan: CompactionPlan, where: str
) -> tuple[FileGroupCompaction, ...]:
    """A stored plan's operations, each file resolved in the metadata table's listing."""
    found = []
    for op in plan.operations or ():
        partition, file_id = op.partition_path or "", op.file_id or ""
        files = {
            f.name: f for g in state.view.file_groups(partition) if g.file_id == file_id for f in _files(g)
        }
        base = files.get(op.data_file_path) if op.data_file_path else None
        logs = [files.get(name) for name in op.delta_file_paths or ()]
        if (op.data_file_path and not isinstance(base, BaseFile)) or not all(
            isinstance(f, LogFile) for f in logs
        ):
            raise CorruptFileError(
                f"the compaction plan names a file of {partition}/{file_id} that is not in the "
                "metadata table",
                where=where,
                hint="restore the metadata table's files, or drop it (`metadata_table: drop`)",
            )
        found.append(
            FileGroupCompaction(
                partition,
                file_id,
                op.base_instant_time or "",
                base if isinstance(base, BaseFile) else None,
                tuple(f for f in logs if isinstance(f, LogFile)),
            )
        )
    return tuple(found)


def _files(group: FileGroup) -> Iterable[BaseFile | LogFile]:
    for file_slice in group.slices:
        yield from file_slice.files
