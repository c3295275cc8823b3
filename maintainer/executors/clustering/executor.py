"""Execute a clustering: requested -> inflight (empty) -> one task per group -> completed
``replacecommit``, all instants through the timeline writer.

Table version 6 (timeline layout 1) names the instant ``replacecommit`` in every state
(``<T>.replacecommit.requested``, ``.inflight``, ``<T>.replacecommit`` in Jackson JSON);
versions 8 and 9 ``clustering`` while pending (``timeline/<T>.clustering.requested``,
``.inflight``) and ``<T>_<completion>.replacecommit`` (Avro) once complete. The requested
file holds the ``HoodieRequestedReplaceMetadata`` (operation ``CLUSTER``) with the plan.

An inflight clustering found at start (a crash, ours or Hudi's) is rolled back first, as Hudi's
``rollbackInflightClustering`` does: a ``rollback`` instant deletes the base files the attempt
wrote (from its CREATE markers, else by listing), then the clustering goes back to requested
and runs again from its stored plan (new file ids). A rollback of it left pending by a crash is
finished first. With ``sync_metadata`` the clustering's metadata deltacommit is written right
before it completes (:func:`~maintainer.executors.common.metadata_sync.sync_clustering`), and
the rollback of an earlier attempt rolls back that attempt's deltacommit. Markers are deleted
once the replacecommit is complete; the replaced file groups are left to the cleaner.

Fault points for tests (``MAINTAINER_FAULT_INJECT``): ``clustering:after_requested`` (a
clustering scheduled here), ``clustering:after_inflight``, ``clustering:after_group``
(in-process runner, after each group), ``clustering:before_commit``,
``clustering:after_metadata_table``, and in the rollback of an earlier attempt
``clustering:rollback_after_requested``, ``rollback_after_inflight``, ``rollback_after_deletes``,
``rollback_after_metadata_table`` (synced tables) and ``rollback_after_completed``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from functools import partial

from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError, UnsupportedTableError
from maintainer.executors.clustering.commit import (
    CLUSTER_OPERATION,
    clustering_commit_metadata,
    encode_replace_commit,
)
from maintainer.executors.clustering.group import GroupTask, SliceToRead, cluster_group
from maintainer.executors.clustering.layout import Layout, layout_of, sort_columns_of
from maintainer.executors.common.codec import configured_settings
from maintainer.executors.common.failed_attempt import RolledBack, roll_back_failed_attempt
from maintainer.executors.common.metadata_sync import sync_clustering
from maintainer.executors.common.slice_read import CommittedInstants
from maintainer.executors.common.table_schema import table_avro_schema
from maintainer.executors.faults import maybe_fail
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat.arrow import arrow_schema
from maintainer.hudi.parquet.basefile import ParquetSettings, with_meta_fields
from maintainer.hudi.payloads import ClusteringGroup, ClusteringPlan, RequestedReplaceMetadata, WriteStat
from maintainer.hudi.records.merge import MergeRules
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.storage import Storage
from maintainer.tasks import InProcessRunner, TaskRunner

SERVICE = "clustering"
IN_PROCESS = InProcessRunner(after_each=partial(maybe_fail, SERVICE, "after_group"))
"""One group after the other in this process, with the ``after_group`` fault point."""


@dataclass(frozen=True)
class ClusteringOutcome:
    instant: Instant
    """The completed clustering (its completed file is a ``replacecommit``)."""
    stats: tuple[WriteStat, ...]
    """One per new base file."""
    replaced: tuple[tuple[str, str], ...]
    """The replaced file groups, (partition, file id), in plan order."""
    rolled_back_files: tuple[str, ...] = ()
    """Partial base files of an earlier failed attempt, deleted before this run (table-relative)."""
    rollback_instant: str | None = None
    """The rollback instant that undid the earlier failed attempt (None: there was none)."""


def clustering_action(config: TableConfig) -> Action:
    """The pending action of a clustering: ``clustering`` on timeline layout 2, else
    ``replacecommit`` (Hudi's ``ClusteringPlanActionExecutor``, "to support table version six")."""
    return Action.CLUSTERING if config.timeline_layout >= TimelineLayout.V2 else Action.REPLACE_COMMIT


def _name(path: str | None) -> str | None:
    return posixpath.basename(path) if path else None


def _slice(piece: payloads.SliceInfo) -> SliceToRead:
    if not piece.file_id:
        raise ApplyError(f"clustering slice without a file id: {piece}")
    if piece.bootstrap_file_path:
        raise UnsupportedTableError(
            f"clustering slice of file group {piece.file_id} has a bootstrap base file "
            f"({piece.bootstrap_file_path}): bootstrapped tables are not supported",
            hint="cluster this table with Hudi itself",
        )
    logs = tuple(n for p in piece.delta_file_paths or () if (n := _name(p)))
    return SliceToRead(piece.partition_path or "", piece.file_id, _name(piece.data_file_path), logs)


def group_slices(group: ClusteringGroup) -> tuple[str, tuple[SliceToRead, ...]]:
    """The group's partition and slices (plan paths are cut to file names: the plan's absolute
    paths name where the table was when it was planned)."""
    slices = tuple(_slice(piece) for piece in group.slices or ())
    partitions = {s.partition for s in slices}
    if len(partitions) != 1:
        raise ApplyError(f"a clustering group must hold slices of one partition, not {sorted(partitions)}")
    return partitions.pop(), slices


def _plan_of(requested: RequestedReplaceMetadata, where: str) -> ClusteringPlan:
    if requested.operation_type != CLUSTER_OPERATION or requested.clustering_plan is None:
        raise ApplyError(
            f"the replacecommit is a {requested.operation_type or 'write without a plan'}, not a clustering",
            where=where,
            hint="only clustering instants are run by the clustering service",
        )
    return requested.clustering_plan


def _check_sort_columns(columns: tuple[str, ...], avro_schema: str) -> None:
    names = set(arrow_schema(with_meta_fields(avro_schema)).names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ApplyError(
            f"the clustering plan sorts by {', '.join(missing)}, which the table schema does not have",
            hint="plan the clustering again with sort columns of the table",
        )


@dataclass(frozen=True)
class TaskSettings:
    """What every group of one clustering shares."""

    storage: Storage
    instant_time: str
    avro_schema: str
    rules: MergeRules
    committed: CommittedInstants
    parquet: ParquetSettings
    sort_columns: tuple[str, ...]
    layout: Layout


def build_tasks(
    storage: Storage,
    config: TableConfig,
    timeline: Timeline,
    instant_time: str,
    plan: ClusteringPlan,
    layout: str | None = None,
    parquet: ParquetSettings | None = None,
) -> list[GroupTask]:
    """One task per group; output files are numbered across the plan (their task ids)."""
    params = dict((plan.strategy.strategy_params if plan.strategy else None) or {})
    schema = table_avro_schema(storage, timeline, config)
    columns = sort_columns_of(params)
    _check_sort_columns(columns, schema)
    shared = TaskSettings(storage, instant_time, schema, MergeRules.for_table(config),
                          CommittedInstants.of(timeline), parquet or configured_settings(config),
                          columns, layout_of(params, layout))  # fmt: skip
    tasks = []
    next_id = 0
    for group in plan.input_groups or ():
        partition, slices = group_slices(group)
        outputs = max(1, group.num_output_file_groups or 1)
        tasks.append(_task(shared, partition, slices, outputs, next_id))
        next_id += outputs
    return tasks


def _task(
    s: TaskSettings, partition: str, slices: tuple[SliceToRead, ...], outputs: int, first: int
) -> GroupTask:
    return GroupTask(s.storage, s.instant_time, partition, slices, outputs, first, s.avro_schema,
                     s.rules, s.committed, s.parquet, s.sort_columns, s.layout)  # fmt: skip


def replaced_file_ids(plan: ClusteringPlan) -> dict[str, list[str]]:
    """Partition -> the file ids of the plan's input slices (plan order)."""
    replaced: dict[str, list[str]] = {}
    for piece in plan.slices():
        ids = replaced.setdefault(piece.partition_path or "", [])
        if piece.file_id and piece.file_id not in ids:
            ids.append(piece.file_id)
    return replaced


def rollback_inflight(
    storage: Storage,
    config: TableConfig,
    clustering: Instant,
    plan: ClusteringPlan,
    clock: Clock = utc_now,
    sync_metadata: bool = False,
) -> RolledBack | None:
    """Roll back the failed attempt of ``clustering`` with a rollback instant (or finish the
    pending rollback of it), leaving it requested; None when there was nothing to roll back."""
    partitions = set(replaced_file_ids(plan))
    return roll_back_failed_attempt(storage, config, SERVICE, clustering, partitions, clock, sync_metadata)


def _read_requested(storage: Storage, timeline: Timeline, instant: Instant) -> ClusteringPlan:
    path = timeline.file_path(instant, State.REQUESTED)
    where = storage.uri(path)
    requested = payloads.decode_requested_replace_metadata(storage.read_bytes(path), where)
    if requested is None:
        raise ApplyError("the clustering's requested file is empty", where=where)
    return _plan_of(requested, where)


@dataclass(frozen=True)
class Requested:
    """The requested clustering to run, its tasks, and the rollback of an earlier attempt."""

    instant: Instant
    plan: ClusteringPlan
    tasks: list[GroupTask]
    rolled_back: RolledBack | None


def _requested(
    storage: Storage,
    writer: TimelineWriter,
    instant_time: str,
    plan: RequestedReplaceMetadata | None,
    options: tuple[str | None, ParquetSettings | None, bool],
) -> Requested:
    """The requested clustering (scheduled here when absent) after the rollback of an earlier
    attempt, if one was needed. The plan is checked and its tasks built before anything is
    written: a plan that cannot run leaves the table as it was."""
    layout, parquet, sync_metadata = options
    config = writer.config
    timeline = writer.timeline()
    action = clustering_action(config)
    entry = timeline.entry(instant_time, action)
    if entry is None:
        if plan is None:
            raise ApplyError(
                f"no clustering {instant_time} in the table and no plan given", where=storage.base_uri
            )
        stored = _plan_of(plan, storage.base_uri)
        tasks = build_tasks(storage, config, timeline, instant_time, stored, layout, parquet)
        requested = writer.create_requested(action, payloads.encode_avro(plan), instant_time)
        maybe_fail(SERVICE, "after_requested")
        return Requested(requested, stored, tasks, None)
    if entry.instant.is_completed:
        raise ApplyError(f"clustering {instant_time} is already completed", where=storage.base_uri)
    stored = _read_requested(storage, timeline, entry.instant)
    tasks = build_tasks(storage, config, timeline, instant_time, stored, layout, parquet)
    rolled_back = rollback_inflight(storage, config, entry.instant, stored, writer.clock, sync_metadata)
    return Requested(entry.instant.with_state(State.REQUESTED), stored, tasks, rolled_back)


def run_clustering(
    storage: Storage,
    config: TableConfig,
    instant_time: str,
    plan: RequestedReplaceMetadata | None = None,
    runner: TaskRunner = IN_PROCESS,
    sync_metadata: bool = False,
    clock: Clock = utc_now,
    layout: str | None = None,
    parquet: ParquetSettings | None = None,
) -> ClusteringOutcome:
    """Run (or finish) the clustering ``instant_time``: scheduled from ``plan`` when the table
    does not have it yet; a pending one (ours or Hudi's) is executed from its stored plan.
    ``layout``: the row order (linear, z-order, hilbert; default the plan's
    ``hoodie.layout.optimize.strategy``, else linear). ``parquet``: the writer settings (default
    the table's configured codec; a group keeps the codec of its first base file).
    ``sync_metadata`` (``metadata_table: sync``): the metadata deltacommit is written right
    before the clustering completes, and an earlier attempt's is rolled back with it."""
    writer = TimelineWriter(storage, config, clock)
    requested = _requested(storage, writer, instant_time, plan, (layout, parquet, sync_metadata))
    with writer.heartbeat(instant_time):
        inflight = writer.transition_to_inflight(requested.instant)
        maybe_fail(SERVICE, "after_inflight")
        tasks = requested.tasks
        stats = [stat for group in runner.run(cluster_group, tasks) for stat in group]
        maybe_fail(SERVICE, "before_commit")
        schema = tasks[0].avro_schema if tasks else table_avro_schema(storage, writer.timeline(), config)
        replaced = replaced_file_ids(requested.plan)
        metadata = clustering_commit_metadata(stats, replaced, schema)
        if sync_metadata:
            sync_clustering(storage, inflight, metadata, clock)
            maybe_fail(SERVICE, "after_metadata_table")
        completed = writer.complete(inflight, encode_replace_commit(metadata, config))
    storage.delete_dir(f"{MARKERS_DIR}/{instant_time}")
    pairs = tuple((p, i) for p, ids in replaced.items() for i in ids)
    rolled_back = requested.rolled_back
    if rolled_back is None:
        return ClusteringOutcome(completed, tuple(stats), pairs)
    return ClusteringOutcome(
        completed, tuple(stats), pairs, rolled_back.deleted, rolled_back.rollback_instant
    )
