"""The figures of one table, read from the table as planning read it (its timeline and the
file-system view of every partition): nothing here reads storage again except the requested
plan of the last completed ``replacecommit`` (is it a clustering) on table version 6."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import datetime, timedelta

from maintainer.artifact.model import CleanEffect, NodePlan
from maintainer.errors import MaintainerError
from maintainer.health.records import (
    LastRun,
    LogBacklog,
    MetadataFigures,
    OrphanFigures,
    PendingInstant,
    SmallFiles,
    TimelineFigures,
    Versions,
)
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.instants.instant import Action, Instant, State, instant_time_to_epoch_ms
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.sync import sync_status
from maintainer.hudi.table.orphans import find_orphans
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.archive.settings import ArchiveSpec


def age_seconds(instant: str, now: datetime, tz: str) -> int:
    """Seconds since an instant time (read in the table's timeline timezone); never negative."""
    return max(0, int(now.timestamp()) - instant_time_to_epoch_ms(instant, tz) // 1000)


def last_runs(table: TableState, now: datetime) -> tuple[LastRun, ...]:
    timeline = table.snapshot.timeline
    tz = table.snapshot.config.timeline_timezone
    found: list[tuple[str, Instant | None]] = [
        ("clean", timeline.last_completed(Action.CLEAN)),
        ("compaction", timeline.last_completed(Action.COMPACTION)),
        ("clustering", _last_clustering(table)),
        ("rollback", timeline.last_completed(Action.ROLLBACK)),
        ("metadata_compaction", _last_metadata_compaction(table)),
    ]
    return tuple(
        LastRun(
            service=service,  # type: ignore[arg-type]
            instant=instant.timestamp if instant else None,
            age_seconds=age_seconds(instant.timestamp, now, tz) if instant else None,
        )
        for service, instant in found
    )


def _last_clustering(table: TableState) -> Instant | None:
    """Layout 2 keeps the ``clustering`` action; layout 1 completes it as a ``replacecommit``
    whose requested plan says CLUSTER (an insert overwrite is a replacecommit too)."""
    timeline = table.snapshot.timeline
    clustering = timeline.last_completed(Action.CLUSTERING)
    replaces = [i for i in timeline.completed() if i.action is Action.REPLACE_COMMIT]
    for instant in reversed(replaces):
        if clustering is not None and instant.timestamp < clustering.timestamp:
            break
        if _is_clustering(table, instant):
            return instant
    return clustering


def _is_clustering(table: TableState, instant: Instant) -> bool:
    timeline = table.snapshot.timeline
    entry = timeline.entry(instant.timestamp, instant.action)
    if entry is None or State.REQUESTED not in entry.state_files:
        return False
    path = timeline.file_path(instant, State.REQUESTED)
    try:
        data = table.storage.read_bytes(path)
        requested = payloads.decode_requested_replace_metadata(data, table.storage.uri(path))
    except (MaintainerError, OSError):
        return False
    return requested is not None and requested.operation_type == "CLUSTER"


def _metadata_timeline(table: TableState) -> Timeline | None:
    return table.snapshot.metadata_table.timeline


def _last_metadata_compaction(table: TableState) -> Instant | None:
    mdt = _metadata_timeline(table)
    return mdt.last_completed(Action.COMMIT, Action.COMPACTION) if mdt is not None else None


def pending(table: TableState, now: datetime, limit: timedelta) -> tuple[PendingInstant, ...]:
    """Pending instants with their age; ``stuck``: older than ``limit``."""
    tz = table.snapshot.config.timeline_timezone
    result = []
    for instant in table.snapshot.timeline.pending():
        age = age_seconds(instant.timestamp, now, tz)
        stuck = age > limit.total_seconds()
        result.append(
            PendingInstant(
                instant=instant.timestamp,
                action=instant.action.value,
                state=instant.state.value,
                age_seconds=age,
                stuck=stuck,
            )
        )
    return tuple(result)


def _median(values: Sequence[int]) -> float:
    return float(statistics.median(values)) if values else 0.0


def log_backlog(table: TableState, max_logs: int) -> LogBacklog:
    slices = table.view.latest_slices()
    counts = [len(s.log_files) for s in slices]
    sizes = [sum(f.size for f in s.log_files) for s in slices]
    base_bytes = sum(s.base_file.size for s in slices if s.base_file is not None)
    log_bytes = sum(sizes)
    is_mor = table.snapshot.config.is_mor
    return LogBacklog(
        slices=len(slices),
        slices_with_logs=sum(1 for c in counts if c),
        log_files=sum(counts),
        log_bytes=log_bytes,
        max_log_files_per_slice=max(counts, default=0),
        p50_log_files_per_slice=_median(counts),
        max_log_bytes_per_slice=max(sizes, default=0),
        p50_log_bytes_per_slice=_median(sizes),
        slices_over_limit=sum(1 for c in counts if c > max_logs),
        read_amplification=round(log_bytes / base_bytes, 4) if is_mor and base_bytes else None,
    )


def small_files(table: TableState, limit: int) -> SmallFiles:
    bases = [s.base_file for s in table.view.latest_slices() if s.base_file is not None]
    small = [b for b in bases if b.size < limit]
    return SmallFiles(
        limit_bytes=limit,
        base_files=len(bases),
        small_files=len(small),
        small_bytes=sum(b.size for b in small),
        share=round(len(small) / len(bases), 4) if bases else 0.0,
    )


def versions(table: TableState, nodes: Sequence[NodePlan]) -> Versions:
    older: list[FileSlice] = [
        file_slice for group in table.view.file_groups(include_replaced=True) for file_slice in group.slices
    ]
    latest = {id(s) for s in table.view.latest_slices()}
    retained = [s for s in older if id(s) not in latest]
    clean = next((n for n in nodes if n.service == "clean"), None)
    effect = clean.effect if clean is not None else None
    freed = effect if isinstance(effect, CleanEffect) else None
    return Versions(
        retained_versions=len(retained),
        retained_bytes=sum(s.total_size for s in retained),
        clean_would_free_bytes=freed.bytes if freed is not None else None,
        clean_would_delete_files=freed.files if freed is not None else None,
    )


def timeline_figures(table: TableState, spec: TableSpec, now: datetime) -> TimelineFigures:
    timeline = table.snapshot.timeline
    archive = spec.settings_of(ArchiveSpec)
    first = timeline.first_instant_time()
    tz = table.snapshot.config.timeline_timezone
    return TimelineFigures(
        active_instants=len(timeline),
        keep_max_commits=archive.keep_max_commits if archive is not None else None,
        oldest_active_instant=first,
        oldest_active_age_seconds=age_seconds(first, now, tz) if first is not None else None,
    )


def metadata_figures(table: TableState) -> MetadataFigures | None:
    info = table.snapshot.metadata_table
    mdt = info.timeline
    if not info.exists or mdt is None:
        return None
    last = mdt.last_completed(Action.COMMIT, Action.COMPACTION)
    since = [
        i
        for i in mdt.completed()
        if i.action is Action.DELTA_COMMIT and (last is None or i.timestamp > last.timestamp)
    ]
    return MetadataFigures(
        partitions=tuple(info.partitions),
        deltacommits_since_compaction=len(since),
        last_compaction=last.timestamp if last is not None else None,
        in_sync=not sync_status(table.snapshot.timeline, mdt).problems(),
    )


def orphan_figures(table: TableState, now: datetime) -> OrphanFigures | None:
    if table.referenced is None:
        return None
    found = find_orphans(table, table.referenced, now)
    return OrphanFigures(
        files=len(found.orphans), bytes=found.bytes, left_alone=found.pending + found.archived + found.young
    )
