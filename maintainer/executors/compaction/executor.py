"""Execute a compaction: ``.compaction.requested`` -> ``.compaction.inflight`` -> one task per
operation -> completed ``commit``, all instants through the timeline writer.

An inflight compaction found at start (a crash, ours or Hudi's) is rolled back first, as Hudi's
``rollbackInflightCompaction`` does: a ``rollback`` instant (requested -> inflight -> completed,
naming the compaction) deletes the base files the attempt wrote, then the compaction goes back
to requested and its markers are deleted; then it runs again. A rollback of it left pending by
a crash is finished first, with its own instant (also for a requested compaction, so that it
can never delete the output of the run that follows). Operations run through a ``TaskRunner``:
in process (``IN_PROCESS``: tests, small tables) or as Spark tasks (``SparkRunner``).
With ``sync_metadata`` (``metadata_table: sync``) the compaction's metadata deltacommit is
written right before it completes, and the rollback of an earlier attempt rolls back that
attempt's metadata deltacommit right before the rollback completes, with the rollback's instant
time (a completed rollback makes the instant it rolled back valid to metadata readers).
Fault points for tests (``MAINTAINER_FAULT_INJECT``): ``compaction:after_inflight``,
``compaction:after_operation`` (in-process runner, after each new base file),
``compaction:before_commit``, ``compaction:after_metadata_table``, and in the rollback of an
earlier attempt ``compaction:rollback_after_requested``, ``rollback_after_inflight``,
``rollback_after_deletes``, ``rollback_after_metadata_table`` (synced tables) and
``rollback_after_completed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError
from maintainer.executors.common.codec import configured_settings
from maintainer.executors.common.failed_attempt import RolledBack, roll_back_failed_attempt
from maintainer.executors.common.metadata_sync import sync_compaction
from maintainer.executors.common.slice_read import CommittedInstants
from maintainer.executors.common.table_schema import table_avro_schema
from maintainer.executors.compaction.commit import compaction_commit_metadata, encode_commit
from maintainer.executors.compaction.operation import (
    CompactionTask,
    SliceToCompact,
    compact_slice,
)
from maintainer.executors.faults import maybe_fail
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.parquet.basefile import ParquetSettings
from maintainer.hudi.payloads import CompactionPlan, WriteStat
from maintainer.hudi.records.merge import MergeRules
from maintainer.hudi.table.snapshot import MARKERS_DIR, load_timeline
from maintainer.storage import Storage
from maintainer.tasks import InProcessRunner, TaskRunner

SERVICE = "compaction"
IN_PROCESS = InProcessRunner(after_each=partial(maybe_fail, SERVICE, "after_operation"))
"""One operation after the other in this process, with the ``after_operation`` fault point."""


@dataclass(frozen=True)
class CompactionOutcome:
    instant: Instant
    """The completed compaction."""
    stats: tuple[WriteStat, ...]
    rolled_back_files: tuple[str, ...] = ()
    """Partial base files of an earlier failed attempt, deleted before this run (table-relative)."""
    rollback_instant: str | None = None
    """The rollback instant that undid the earlier failed attempt (None: there was none)."""


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


SizeOf = Callable[[str], "int | None"]
"""The size of a table file (table-relative path) as listed; None where not known."""


def _with_sizes(slices: list[SliceToCompact], size_of: SizeOf | None) -> list[SliceToCompact]:
    if size_of is None:
        return slices
    return [replace(s, base_file_size=size_of(s.path(s.base_file))) if s.base_file else s for s in slices]


def build_tasks(
    storage: Storage,
    config: TableConfig,
    timeline: Timeline,
    instant_time: str,
    plan: CompactionPlan,
    parquet: ParquetSettings | None = None,
    size_of: SizeOf | None = None,
) -> list[CompactionTask]:
    """One task per operation; ``size_of``: base file sizes as listed (read without a request
    for them)."""
    schema = table_avro_schema(storage, timeline, config)
    settings = parquet or configured_settings(config)
    rules = MergeRules.for_table(config)
    committed = CommittedInstants.of(timeline)
    return [
        CompactionTask(storage, instant_time, s, f"{i}-1-{i}", i, schema, rules, committed, settings)
        for i, s in enumerate(_with_sizes(slices_of(plan), size_of))
    ]


def rollback_inflight(
    storage: Storage,
    config: TableConfig,
    compaction: Instant,
    plan: CompactionPlan,
    clock: Clock = utc_now,
    sync_metadata: bool = False,
) -> RolledBack | None:
    """Roll back the failed attempt of ``compaction`` with a rollback instant (or finish the
    pending rollback of it), leaving it requested; None when there was nothing to roll back.
    ``sync_metadata``: its metadata deltacommit is rolled back too, before the rollback completes."""
    partitions = {s.partition for s in slices_of(plan)}
    return roll_back_failed_attempt(storage, config, SERVICE, compaction, partitions, clock, sync_metadata)


def _read_plan(storage: Storage, timeline: Timeline, instant: Instant) -> CompactionPlan:
    path = timeline.file_path(instant, State.REQUESTED)
    plan = payloads.decode_compaction_plan(storage.read_bytes(path), storage.uri(path))
    if plan is None:
        raise ApplyError("the compaction plan is empty", where=storage.uri(path))
    return plan


def _requested(
    storage: Storage,
    writer: TimelineWriter,
    instant_time: str,
    plan: CompactionPlan | None,
    sync_metadata: bool,
) -> tuple[Instant, CompactionPlan, RolledBack | None]:
    """The requested compaction to run (scheduled here when absent) and the rollback of an
    earlier attempt, if one was needed."""
    timeline = writer.timeline()
    entry = timeline.entry(instant_time, Action.COMPACTION)
    if entry is None:
        if plan is None:
            raise ApplyError(
                f"no compaction {instant_time} in the table and no plan given", where=storage.base_uri
            )
        requested = writer.create_requested(Action.COMPACTION, payloads.encode_avro(plan), instant_time)
        return requested, plan, None
    if entry.instant.is_completed:
        raise ApplyError(f"compaction {instant_time} is already completed", where=storage.base_uri)
    stored = _read_plan(storage, timeline, entry.instant)
    rolled_back = rollback_inflight(
        storage, writer.config, entry.instant, stored, writer.clock, sync_metadata
    )
    return entry.instant.with_state(State.REQUESTED), stored, rolled_back


def run_compaction(
    storage: Storage,
    config: TableConfig,
    instant_time: str,
    plan: CompactionPlan | None = None,
    runner: TaskRunner = IN_PROCESS,
    parquet: ParquetSettings | None = None,
    sync_metadata: bool = False,
    clock: Clock = utc_now,
    size_of: SizeOf | None = None,
) -> CompactionOutcome:
    """Run (or finish) the compaction ``instant_time``: scheduled from ``plan`` when the table
    does not have it yet; a pending one is executed from its stored plan. ``parquet``: the writer
    settings of slices without a base file whose codec is kept (default:
    :func:`maintainer.executors.common.codec.configured_settings` without a manifest option).
    ``sync_metadata`` (``metadata_table: sync``):
    the metadata deltacommit is written right before the compaction completes, and an earlier
    attempt's is rolled back with it (see the module doc). ``clock``: what new instants are timed by
    (apply's). ``size_of``: the base files' sizes as the caller listed them."""
    writer = TimelineWriter(storage, config, clock)
    requested, stored, rolled_back = _requested(storage, writer, instant_time, plan, sync_metadata)
    with writer.heartbeat(instant_time):
        inflight = writer.transition_to_inflight(requested)
        maybe_fail(SERVICE, "after_inflight")
        timeline = load_timeline(storage, config)
        tasks = build_tasks(storage, config, timeline, instant_time, stored, parquet, size_of)
        stats = runner.run(compact_slice, tasks)
        maybe_fail(SERVICE, "before_commit")
        schema = tasks[0].avro_schema if tasks else table_avro_schema(storage, writer.timeline(), config)
        metadata = compaction_commit_metadata(stats, schema, stored.extra_metadata)
        if sync_metadata:
            sync_compaction(storage, inflight, metadata, clock)
            maybe_fail(SERVICE, "after_metadata_table")
        completed = writer.complete(inflight, encode_commit(metadata, config))
    storage.delete_dir(f"{MARKERS_DIR}/{instant_time}")
    if rolled_back is None:
        return CompactionOutcome(completed, tuple(stats))
    return CompactionOutcome(completed, tuple(stats), rolled_back.deleted, rolled_back.rollback_instant)
