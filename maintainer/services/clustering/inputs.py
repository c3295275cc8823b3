"""Read what the clustering planner needs from an opened table (storage reads; the planner
itself is pure): the requested payloads of the pending replacecommits and clusterings and of the
completed ones back to the last clustering (:func:`~.planner.relevant_replaces`), and the
partitions written by the commits the partition rules look at (:mod:`.partitions`).

A requested payload that is damaged (or missing, for a pending instant) is recorded in
``ClusteringInputs.unreadable``, which blocks the plan with the instant named; storage that cannot
be reached raises as everywhere else."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from maintainer.errors import CorruptFileError
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import read_instant_file
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.hudi.table.state import TableState
from maintainer.services.clustering.model import ClusteringInputs, ClusteringPlanResult
from maintainer.services.clustering.partitions import commits_since, recent_cutoff, writes_since
from maintainer.services.clustering.planner import (
    is_clustering,
    last_completed_clustering,
    plan_clustering,
    relevant_replaces,
)
from maintainer.services.clustering.settings import ClusteringSpec


def _requested_payloads(
    table: TableState, instants: Iterable[Instant]
) -> tuple[dict[str, RequestedReplaceMetadata | None], dict[str, str], dict[str, str]]:
    timeline = table.snapshot.timeline
    requested: dict[str, RequestedReplaceMetadata | None] = {}
    hashes: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for instant in instants:
        entry = timeline.entry(instant.timestamp, instant.action)
        path = timeline.file_path(instant, State.REQUESTED)
        if entry is None or State.REQUESTED not in entry.state_files:
            if instant.is_pending:
                unreadable[path] = f"the {instant.action.value} {instant.timestamp} has no requested file"
            else:
                requested[instant.timestamp] = None
            continue
        where = table.storage.uri(path)
        try:
            data = read_instant_file(table.storage, path)
            requested[instant.timestamp] = payloads.decode_requested_replace_metadata(data, where)
        except CorruptFileError as exc:
            unreadable[path] = exc.message
            continue
        hashes[instant.timestamp] = hashlib.sha256(data).hexdigest()
    return requested, hashes, unreadable


def _written_partitions(
    table: TableState, instants: Iterable[Instant]
) -> tuple[dict[str, frozenset[str]], dict[str, str]]:
    timeline = table.snapshot.timeline
    written: dict[str, frozenset[str]] = {}
    unreadable: dict[str, str] = {}
    for instant in instants:
        path = timeline.file_path(instant, State.COMPLETED)
        where = table.storage.uri(path)
        try:
            data = read_instant_file(table.storage, path)
            metadata = (
                payloads.decode_replace_commit_metadata(data, where)
                if instant.completed_action is Action.REPLACE_COMMIT
                else payloads.decode_commit_metadata(data, where)
            )
        except CorruptFileError as exc:
            unreadable[path] = exc.message
            continue
        by_partition = metadata.partition_to_write_stats or {}
        written[instant.timestamp] = frozenset(
            stat.partition_path if stat.partition_path is not None else key
            for key, stats in by_partition.items()
            for stat in stats
        )
    return written, unreadable


def read_clustering_inputs(table: TableState, spec: ClusteringSpec, now: datetime) -> ClusteringInputs:
    """The planner's inputs from an opened table, for ``spec`` at ``now``."""
    snapshot = table.snapshot
    timeline = snapshot.timeline
    requested, hashes, unreadable = _requested_payloads(table, relevant_replaces(timeline))
    partial = ClusteringInputs(
        timeline, table.view, snapshot.config, table.storage.uri(""), requested, hashes, unreadable
    )
    commits: dict[str, Instant] = {}
    last = last_completed_clustering(partial) if timeline.layout is TimelineLayout.V2 else None
    if last is not None:
        commits.update((i.timestamp, i) for i in commits_since(timeline, last, snapshot.config.is_mor))
    cutoff = recent_cutoff(now, spec, snapshot.config.timeline_timezone)
    if cutoff is not None:
        recent = writes_since(timeline, cutoff, lambda i: is_clustering(partial, i))
        commits.update((i.timestamp, i) for i in recent)
    written, broken = _written_partitions(table, commits.values())
    return ClusteringInputs(
        timeline,
        table.view,
        snapshot.config,
        table.storage.uri(""),
        requested,
        hashes,
        {**unreadable, **broken},
        written,
        frozenset(table.projection.instants) if table.projection is not None else frozenset(),
    )


def plan_table_clustering(
    table: TableState, spec: ClusteringSpec, now: datetime, instant_time: str | None = None
) -> ClusteringPlanResult:
    """The pure planner on an opened table: :func:`read_clustering_inputs`, then
    :func:`~.planner.plan_clustering`."""
    return plan_clustering(read_clustering_inputs(table, spec, now), spec, now, instant_time)
