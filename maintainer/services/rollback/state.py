"""Read what the rollback planner needs from a loaded table (read-only)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from maintainer.executors.common.markers import Marker, read_markers
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.file_groups.filenames import MarkerType
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.instants.instant import (
    WRITE_ACTIONS,
    Action,
    Instant,
    State,
    instant_time_to_epoch_ms,
)
from maintainer.hudi.logformat import read_log_file
from maintainer.hudi.table.state import TableState
from maintainer.services.rollback.model import (
    RollbackInputs,
)


def _pending_writes(table: TableState, clustering: frozenset[str]) -> list[Instant]:
    """The pending writes the planner may roll back (no compaction, log compaction or
    clustering: those are left to the job that executes them)."""
    return [
        i
        for i in table.snapshot.timeline.pending()
        if i.action in WRITE_ACTIONS and i.timestamp not in clustering
    ]


def _markers(table: TableState, instants: Iterable[Instant]) -> dict[str, tuple[Marker, ...]]:
    found = {i.timestamp: read_markers(table.storage, i.timestamp) for i in instants}
    return {time: markers for time, markers in found.items() if markers}


def _block_instants(table: TableState, logs: Iterable[LogFile]) -> dict[str, frozenset[str]]:
    """INSTANT_TIMEs of the blocks of each log file (for listing-based rollbacks on v6)."""
    result = {}
    for log in logs:
        blocks = read_log_file(table.storage, log.path)
        result[log.path] = frozenset(b.instant_time for b in blocks if b.instant_time)
    return result


CLOCK_SKEW_MS = 24 * 3600 * 1000
"""Margin for clock skew and a misconfigured timeline timezone (at most 14 hours off)."""


def _logs_written_since(table: TableState, instant_times: Iterable[str]) -> list[LogFile]:
    """Log files of the latest slices modified after the earliest of ``instant_times`` (less a
    clock-skew margin): only those can hold blocks of these instants, so only those are read."""
    tz = table.snapshot.config.timeline_timezone
    since = min(instant_time_to_epoch_ms(t, tz) for t in instant_times) - CLOCK_SKEW_MS
    logs = [f for s in table.view.latest_slices() for f in s.log_files]
    listings = table.snapshot.listings
    mtimes = {i.path: i.mtime_ms for p in {f.partition for f in logs} for i in listings.get(p, ())}
    return [f for f in logs if (mtimes.get(f.path) or since) >= since]


def _decode_plans(table: TableState) -> dict[str, payloads.RollbackPlan]:
    timeline = table.snapshot.timeline
    plans = {}
    for instant in timeline.pending_rollbacks():
        path = timeline.file_path(instant, State.REQUESTED)
        plan = payloads.decode_rollback_plan(table.storage.read_bytes(path), table.storage.uri(path))
        if plan is not None:
            plans[instant.timestamp] = plan
    return plans


def completed_rollback_targets(table: TableState, pending_times: set[str]) -> dict[str, str]:
    """Of ``pending_times``, those a completed rollback of the active timeline names (target ->
    rollback instant): crash leftovers, or targets an earlier apply already rolled back."""
    timeline = table.snapshot.timeline
    targets: dict[str, str] = {}
    if not pending_times:
        return targets
    for instant in timeline.completed():
        if instant.action is not Action.ROLLBACK:
            continue
        path = timeline.file_path(instant, State.COMPLETED)
        metadata = payloads.decode_rollback_metadata(table.storage.read_bytes(path), table.storage.uri(path))
        for commit in metadata.commits_rollback if metadata else ():
            if commit in pending_times:
                targets[commit] = instant.timestamp
    return targets


def _clustering_replacecommits(table: TableState) -> frozenset[str]:
    clustering = table.view.inputs.pending_clustering.values()
    return frozenset(op.instant_time for op in clustering)


def _files_of(
    table: TableState,
    targets: set[str],
    markers: Mapping[str, tuple[Marker, ...]],
    block_instants: Mapping[str, frozenset[str]],
) -> tuple[BaseFile | LogFile, ...]:
    """The data files a rollback plan may name: those the pending writes wrote (their
    instant), the logs their append markers name, and the logs holding their blocks; none
    read when nothing is pending (a plan never holds the whole table's files)."""
    if not targets:
        return ()
    marked = {m.path for found in markers.values() for m in found if m.marker_type is MarkerType.APPEND}
    view = table.view
    return tuple(
        f
        for partition in view.groups
        for f in (*_partition_files(view, partition), *view.uncommitted_in(partition))
        if f.instant_time in targets or f.path in marked or f.path in block_instants
    )


def _partition_files(view: FileSystemView, partition: str) -> list[BaseFile | LogFile]:
    groups = view.file_groups(partition, include_replaced=True)
    return [f for g in groups for s in g.slices for f in s.files]


def load_rollback_inputs(table: TableState) -> RollbackInputs:
    snapshot = table.snapshot
    clustering = _clustering_replacecommits(table)
    targets = _pending_writes(table, clustering)
    markers = _markers(table, targets)
    unmarked = [t.timestamp for t in targets if t.timestamp not in markers]
    needs_blocks = snapshot.config.version < 8 and snapshot.config.is_mor and bool(unmarked)
    block_instants = _block_instants(table, _logs_written_since(table, unmarked)) if needs_blocks else {}
    files = _files_of(table, {t.timestamp for t in targets}, markers, block_instants)
    return RollbackInputs(
        timeline=snapshot.timeline,
        table_version=snapshot.config.version,
        is_mor=snapshot.config.is_mor,
        table_uri=table.storage.uri(""),
        files=files,
        markers=markers,
        heartbeats=dict(snapshot.heartbeats),
        log_block_instants=block_instants,
        pending_rollback_plans=_decode_plans(table),
        completed_rollback_targets=completed_rollback_targets(table, {t.timestamp for t in targets}),
        clustering_replacecommits=clustering,
        timezone=snapshot.config.timeline_timezone,
    )
