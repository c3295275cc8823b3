"""Execute a compaction: ``.compaction.requested`` -> ``.compaction.inflight`` -> one task per
operation -> completed ``commit``, all instants through the timeline writer.

An inflight compaction found at start (a crash, ours or Hudi's) is rolled back first, as Hudi
does: the base files it wrote (named with the compaction instant) and its markers are deleted
and the instant goes back to requested; then it runs again. Operations run through a
``Runner``: in process (tests, small tables) or as Spark tasks (:func:`spark_runner`).
Fault points for tests (``MAINTAINER_FAULT_INJECT``): ``compaction:after_inflight``,
``compaction:after_operation`` (in-process runner, after each new base file) and
``compaction:before_commit``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from maintainer.errors import ApplyError
from maintainer.hudi import payloads
from maintainer.hudi.basefile import ParquetSettings
from maintainer.hudi.filenames import BaseFileName
from maintainer.hudi.instant import Action, Instant, State
from maintainer.hudi.merge import MergeRules
from maintainer.hudi.payloads import CompactionPlan, WriteStat
from maintainer.hudi.properties import TableConfig
from maintainer.hudi.table import MARKERS_DIR, load_timeline
from maintainer.hudi.timeline import Timeline
from maintainer.hudi.timeline_writer import TimelineWriter
from maintainer.runner.faults import maybe_fail
from maintainer.services.compaction.commit import compaction_commit_metadata, encode_commit
from maintainer.services.compaction.operation import (
    CommittedInstants,
    CompactionTask,
    SliceToCompact,
    compact_slice,
)
from maintainer.services.compaction.payload import PLAN_ID_KEY
from maintainer.storage import Storage

SERVICE = "compaction"
TaskFunction = Callable[[CompactionTask], WriteStat]
Runner = Callable[[TaskFunction, Sequence[CompactionTask]], list[WriteStat]]


def run_in_process(function: TaskFunction, tasks: Sequence[CompactionTask]) -> list[WriteStat]:
    """One operation after the other in this process."""
    stats = []
    for task in tasks:
        stats.append(function(task))
        maybe_fail(SERVICE, "after_operation")
    return stats


def spark_runner(spark: Any) -> Runner:
    """One Spark task per operation (``mapInArrow`` through ``map_tasks``)."""
    from maintainer.spark.tasks import map_tasks

    def run(function: TaskFunction, tasks: Sequence[CompactionTask]) -> list[WriteStat]:
        return map_tasks(spark, function, tasks)

    return run


@dataclass(frozen=True)
class CompactionOutcome:
    instant: Instant
    """The completed compaction."""
    stats: tuple[WriteStat, ...]
    rolled_back_files: tuple[str, ...] = ()
    """Partial base files of an earlier failed attempt, deleted before this run."""


def table_avro_schema(storage: Storage, timeline: Timeline, config: TableConfig) -> str:
    """The newest commit's writer schema, else ``hoodie.table.create.schema``."""
    for instant in reversed(timeline.completed_commits()):
        path = timeline.file_path(instant, State.COMPLETED)
        metadata = payloads.decode_commit_metadata(storage.read_bytes(path), storage.uri(path))
        if metadata.table_schema:
            return metadata.table_schema
    if config.create_schema:
        return config.create_schema
    raise ApplyError(
        "the table has no schema in its commits or hoodie.properties: cannot write base files",
        where=storage.base_uri,
    )


def _name(path: str | None) -> str | None:
    return path.rsplit("/", 1)[-1] if path else None


def slices_of(plan: CompactionPlan) -> list[SliceToCompact]:
    """The slices of a plan (version 2 file names; version 1 full paths are cut to names)."""
    slices = []
    for op in plan.operations or ():
        if op.file_id is None or op.base_instant_time is None:
            raise ApplyError(f"compaction operation without file id or base instant: {op}")
        if op.bootstrap_file_path:
            raise ApplyError(
                f"compaction operation on file group {op.file_id} has a bootstrap base file "
                f"({op.bootstrap_file_path}): bootstrapped tables are not supported",
                hint="compact this table with Hudi itself",
            )
        logs = tuple(n for p in op.delta_file_paths or () if (n := _name(p)))
        slices.append(
            SliceToCompact(
                op.partition_path or "", op.file_id, op.base_instant_time, _name(op.data_file_path), logs
            )
        )
    return slices


def build_tasks(
    storage: Storage,
    config: TableConfig,
    timeline: Timeline,
    instant_time: str,
    plan: CompactionPlan,
    parquet: ParquetSettings | None = None,
) -> list[CompactionTask]:
    schema = table_avro_schema(storage, timeline, config)
    settings = parquet or ParquetSettings(populate_meta_fields=config.populate_meta_fields)
    rules = MergeRules.for_table(config)
    committed = CommittedInstants.of(timeline)
    return [
        CompactionTask(storage, instant_time, s, f"{i}-1-{i}", i, schema, rules, committed, settings)
        for i, s in enumerate(slices_of(plan))
    ]


def rollback_inflight(
    storage: Storage, writer: TimelineWriter, inflight: Instant, plan: CompactionPlan
) -> list[str]:
    """Delete the base files a failed attempt wrote (named with its instant) and its markers,
    then revert the instant to requested. Returns the deleted paths."""
    deleted = []
    for partition in sorted({s.partition for s in slices_of(plan)}):
        for info in storage.list_dir(partition):
            name = BaseFileName.parse(info.name)
            if name is not None and name.instant_time == inflight.timestamp and storage.delete(info.path):
                deleted.append(info.path)
    storage.delete_dir(f"{MARKERS_DIR}/{inflight.timestamp}")
    writer.revert_inflight_to_requested(inflight)
    return deleted


def _read_plan(storage: Storage, timeline: Timeline, instant: Instant) -> CompactionPlan:
    path = timeline.file_path(instant, State.REQUESTED)
    plan = payloads.decode_compaction_plan(storage.read_bytes(path), storage.uri(path))
    if plan is None:
        raise ApplyError("the compaction plan is empty", where=storage.uri(path))
    return plan


def _requested(
    storage: Storage, writer: TimelineWriter, instant_time: str, plan: CompactionPlan | None
) -> tuple[Instant, CompactionPlan, list[str]]:
    """The requested compaction to run (scheduled here when absent) and any rolled-back files."""
    timeline = writer.timeline()
    entry = timeline.entry(instant_time, Action.COMPACTION)
    if entry is None:
        if plan is None:
            raise ApplyError(
                f"no compaction {instant_time} in the table and no plan given", where=storage.base_uri
            )
        return writer.create_requested(Action.COMPACTION, payloads.encode_avro(plan), instant_time), plan, []
    if entry.instant.is_completed:
        raise ApplyError(f"compaction {instant_time} is already completed", where=storage.base_uri)
    stored = _read_plan(storage, timeline, entry.instant)
    if entry.instant.state is State.INFLIGHT:
        deleted = rollback_inflight(storage, writer, entry.instant, stored)
        return entry.instant.with_state(State.REQUESTED), stored, deleted
    return entry.instant, stored, []


def run_compaction(
    storage: Storage,
    config: TableConfig,
    instant_time: str,
    plan: CompactionPlan | None = None,
    runner: Runner = run_in_process,
    parquet: ParquetSettings | None = None,
) -> CompactionOutcome:
    """Run (or finish) the compaction ``instant_time``: scheduled from ``plan`` when the table
    does not have it yet; a pending one is executed from its stored plan."""
    writer = TimelineWriter(storage, config)
    requested, stored, rolled_back = _requested(storage, writer, instant_time, plan)
    inflight = writer.transition_to_inflight(requested)
    maybe_fail(SERVICE, "after_inflight")
    tasks = build_tasks(storage, config, load_timeline(storage, config), instant_time, stored, parquet)
    stats = runner(compact_slice, tasks)
    maybe_fail(SERVICE, "before_commit")
    schema = tasks[0].avro_schema if tasks else table_avro_schema(storage, writer.timeline(), config)
    plan_id = (stored.extra_metadata or {}).get(PLAN_ID_KEY)
    metadata = compaction_commit_metadata(stats, schema, plan_id)
    completed = writer.complete(inflight, encode_commit(metadata, config))
    storage.delete_dir(f"{MARKERS_DIR}/{instant_time}")
    return CompactionOutcome(completed, tuple(stats), tuple(rolled_back))


def thread_runner(workers: int) -> Runner:
    """Operations on a pool of threads in this process (Arrow and Parquet release the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    def run(function: TaskFunction, tasks: Sequence[CompactionTask]) -> list[WriteStat]:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="compaction") as pool:
            return list(pool.map(function, tasks))

    return run
