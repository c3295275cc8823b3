"""Generate a real Hudi table: commits written through the timeline writer, data files as
Hudi's Spark writer leaves them (markers and heartbeat while in flight), and the rows a
correct reader must return after each commit."""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maintainer.clock import Clock, utc_now
from maintainer.datagen.filegroup import FileGroupTask, TaskResult, WriteContext, write_file_group
from maintainer.datagen.layout import TableLayout, avro_schema, create_table, partition_metadata
from maintainer.datagen.metadata_table import create_metadata_table, sync_commit
from maintainer.datagen.workload import PARTITION_FIELD, CommitWork, Workload, WorkloadSpec
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.filenames import MarkerName
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import CommitMetadata, WriteStat
from maintainer.hudi.table.snapshot import HEARTBEAT_DIR, MARKERS_DIR
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner, ThreadPoolRunner

LOCAL_WRITERS = ThreadPoolRunner(workers=4)
"""The file groups written on local threads (small tables, tests); large tables write each
file group in its own Spark task (``maintainer.spark.tasks.SparkRunner``)."""


@dataclass(frozen=True, slots=True)
class DatagenSpec:
    name: str = "trips"
    table_type: str = "cow"
    table_version: int = 6
    workload: WorkloadSpec = field(default_factory=WorkloadSpec)
    failed_write: bool = False
    """Leave the last commit inflight (a writer that died)."""
    failed_write_at: int | None = None
    """Leave commit N (0-based) inflight instead, while later commits complete: a concurrent
    writer that died (or still runs) with younger commits around it."""
    metadata_table: bool = False
    """Keep a metadata table (``files`` partition) as Hudi 1.0 does; table version 8 only."""

    @property
    def failed_index(self) -> int | None:
        if self.failed_write_at is not None:
            return self.failed_write_at
        return self.workload.commits - 1 if self.failed_write else None


@dataclass(frozen=True)
class GeneratedTable:
    path: str
    config: TableConfig
    completed: tuple[str, ...]
    failed_instant: str | None
    expected: dict[str, list[dict[str, Any]]]
    """Completed instant time -> the rows a reader must return as of it (key order)."""


@dataclass
class _GroupState:
    base_file: str | None = None
    log_files: list[str] = field(default_factory=list)


class _Generator:
    def __init__(self, storage: Storage, spec: DatagenSpec, clock: Clock, runner: TaskRunner):
        self.storage = storage
        self.spec = spec
        self.clock = clock
        self.runner = runner
        self.layout = TableLayout(
            spec.name, spec.table_type, spec.table_version, spec.workload.partitions > 0, spec.metadata_table
        )
        if spec.metadata_table and spec.table_version < 8:
            raise ValueError("datagen writes metadata tables for table version 8 only")
        self.config = create_table(storage, self.layout, clock())
        if spec.metadata_table:
            create_metadata_table(storage, spec.name, clock)
        self.timeline = TimelineWriter(storage, self.config, clock)
        self.schema = avro_schema(spec.name)
        self.groups: dict[tuple[str, int], _GroupState] = {}
        self.partitions_written: set[str] = set()

    @property
    def action(self) -> Action:
        return Action.DELTA_COMMIT if self.layout.is_mor else Action.COMMIT

    def partition_path(self, value: str) -> str:
        return f"{PARTITION_FIELD}={value}" if self.layout.partitioned else ""

    def file_id(self, partition: str, group: int) -> str:
        digest = hashlib.sha256(f"{self.spec.workload.seed}/{partition}/{group}".encode()).digest()
        return f"{uuid.UUID(bytes=digest[:16], version=4)}-0"

    def encode_metadata(self, metadata: CommitMetadata) -> bytes:
        if self.config.timeline_layout.commit_metadata_is_avro:
            return payloads.encode_avro(metadata)
        return payloads.encode_commit_metadata_json(metadata)

    def tasks(self, work: CommitWork) -> list[FileGroupTask]:
        tasks = []
        for task_id, ((value, group), changes) in enumerate(sorted(work.changes.items())):
            state = self.groups.setdefault((value, group), _GroupState())
            tasks.append(
                FileGroupTask(self.partition_path(value), self.file_id(value, group), changes,
                              state.base_file, tuple(state.log_files), task_id)
            )  # fmt: skip
        return tasks

    def write_partition_metadata(self, tasks: Iterable[FileGroupTask], instant_time: str) -> None:
        depth = 1 if self.layout.partitioned else 0
        for partition in sorted({t.partition_path for t in tasks} - self.partitions_written):
            name = f"{partition}/.hoodie_partition_metadata" if partition else ".hoodie_partition_metadata"
            if not self.storage.exists(name):
                self.storage.write_if_absent(name, partition_metadata(instant_time, depth, self.clock()))
            self.partitions_written.add(partition)

    def write_markers(self, instant_time: str, results: Iterable[TaskResult]) -> None:
        for path, marker_type in (r.marker for r in results):
            marker = MarkerName(path.rsplit("/", 1)[-1], marker_type).name
            directory = (
                f"{MARKERS_DIR}/{instant_time}/{path.rsplit('/', 1)[0] if '/' in path else ''}".rstrip("/")
            )
            self.storage.write_bytes(f"{directory}/{marker}", b"")

    def metadata(self, stats: Iterable[WriteStat], operation: str) -> CommitMetadata:
        by_partition: dict[str, list[WriteStat]] = {}
        for stat in stats:
            by_partition.setdefault(stat.partition_path or "", []).append(stat)
        return CommitMetadata(
            partition_to_write_stats={k: tuple(v) for k, v in sorted(by_partition.items())},
            compacted=False,
            extra_metadata={"schema": self.schema},
            operation_type=operation,
        )

    def start(self, operation: str) -> Instant:
        requested = self.timeline.create_requested(self.action)
        self.storage.write_bytes(f"{HEARTBEAT_DIR}/{requested.timestamp}", b"")
        return self.timeline.transition_to_inflight(
            requested, self.encode_metadata(self.metadata((), operation))
        )

    def write(self, work: CommitWork, fail: bool) -> str:
        operation = "INSERT" if work.index == 0 else "UPSERT"
        inflight = self.start(operation)
        ctx = WriteContext(
            inflight.timestamp, work.index, self.layout.is_mor, self.config.version, self.schema
        )
        tasks = self.tasks(work)
        self.write_partition_metadata(tasks, inflight.timestamp)
        results = self.runner.run(functools.partial(write_file_group, self.storage, ctx), tasks)
        self.write_markers(inflight.timestamp, results)
        if fail:
            self.track_failed(work, results)
            return inflight.timestamp
        metadata = self.metadata((r.stat for r in results), operation)
        if self.spec.metadata_table:
            sync_commit(self.storage, inflight.timestamp, metadata.partition_to_write_stats or {}, self.clock)
        self.timeline.complete(inflight, self.encode_metadata(metadata))
        self.storage.delete_dir(f"{MARKERS_DIR}/{inflight.timestamp}")
        self.storage.delete(f"{HEARTBEAT_DIR}/{inflight.timestamp}")
        self.track(work, results)
        return inflight.timestamp

    def track_failed(self, work: CommitWork, results: Sequence[TaskResult]) -> None:
        """A failed write's log files stay in the listing: later writers take the next log
        version, as Hudi's writers do; its base files are not the groups' committed slices."""
        for key, result in zip(sorted(work.changes), results, strict=True):
            name = (result.stat.path or "").rsplit("/", 1)[-1]
            if name.startswith("."):
                self.groups[key].log_files.append(name)

    def track(self, work: CommitWork, results: Sequence[TaskResult]) -> None:
        for key, result in zip(sorted(work.changes), results, strict=True):
            state = self.groups[key]
            name = (result.stat.path or "").rsplit("/", 1)[-1]
            if name.startswith("."):
                state.log_files.append(name)
            else:
                state.base_file, state.log_files = name, []


class TableWriter:
    """A generated table written one commit at a time (e.g. a writer between maintenance runs):
    :meth:`write_next` writes the workload's next commit and returns its instant."""

    def __init__(
        self,
        path: str,
        spec: DatagenSpec,
        clock: Clock = utc_now,
        runner: TaskRunner = LOCAL_WRITERS,
        storage_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.spec = spec
        self.storage = Storage(path, storage_options, durable=False)
        self._generator = _Generator(self.storage, spec, clock, runner)
        self.workload = Workload(spec.workload)
        self.written = 0

    @property
    def config(self) -> TableConfig:
        return self._generator.config

    def write_next(self) -> tuple[str, bool]:
        """Write the next commit: (its instant, whether it was left failed)."""
        work, ids, rows = self.workload.next_commit(self.written)
        fail = work.index == self.spec.failed_index
        instant = self._generator.write(work, fail)
        self.written += 1
        if not fail:
            self.workload.apply(ids, rows)
        return instant, fail


def generate(
    path: str,
    spec: DatagenSpec,
    clock: Clock = utc_now,
    runner: TaskRunner = LOCAL_WRITERS,
    keep_history: bool = True,
    storage_options: Mapping[str, Any] | None = None,
) -> GeneratedTable:
    """Write the table at ``path`` (which must not hold a table yet). A scratch table: its
    files are renamed into place whole, but not flushed to disk one by one (half the time)."""
    writer = TableWriter(path, spec, clock, runner, storage_options)
    completed: list[str] = []
    expected: dict[str, list[dict[str, Any]]] = {}
    failed: str | None = None
    for index in range(spec.workload.commits):
        instant, fail = writer.write_next()
        if fail:
            failed = instant
            continue
        completed.append(instant)
        if keep_history or index == spec.workload.commits - 1:
            expected[instant] = writer.workload.expected_rows()
    return GeneratedTable(writer.storage.base_uri, writer.config, tuple(completed), failed, expected)


def write_expected(table: GeneratedTable, target: Path) -> None:
    """One JSON line per completed instant: ``{"instant": ..., "rows": [...]}``."""
    with target.open("w", encoding="utf-8") as out:
        for instant, rows in table.expected.items():
            out.write(json.dumps({"instant": instant, "rows": rows}, sort_keys=True) + "\n")
