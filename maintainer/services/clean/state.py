"""Everything the pure clean planner needs, read from a table: the settings (from the manifest's
CleanSpec), the last completed clean, the scan scope with the partitions written by the
window's commits, the savepointed files and the file-system view of the scanned partitions.

``prepare_clean`` tells the plan builder which partitions to list before the table is
opened (only the window's when incremental), with the scope that says so (passed back to the
planner: chosen once), and ``plan_clean_node`` plans one clean node on an
opened table. Both read only instant files (never data files) and never write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from maintainer.hudi import payloads
from maintainer.hudi.file_groups.fsview import FileSystemView, build_view
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline, read_instant_file
from maintainer.hudi.payloads.clean_retention import decode_clean_retention
from maintainer.hudi.table.projection import Projection
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.clean.payload import SAVEPOINTED_TIMESTAMPS_KEY
from maintainer.services.clean.planner import CleanInputs, CleanPlanResult, partitions_planner, plan_clean
from maintainer.services.clean.policy import (
    CleanPolicy,
    CleanSettings,
    RetentionPoint,
    earliest_commit_to_retain,
)
from maintainer.services.clean.scope import LastClean, ScanScope, choose_scope, partitions_in_window
from maintainer.services.clean.settings import CleanSpec
from maintainer.storage import FileInfo, Storage
from maintainer.storage.listing import Listings


def clean_settings(spec: CleanSpec) -> CleanSettings:
    """The planner's settings from the manifest's clean block."""
    return CleanSettings(
        policy=CleanPolicy.parse(spec.policy),
        commits_retained=spec.commits_retained,
        file_versions_retained=spec.file_versions_retained,
        hours_retained=spec.hours_retained,
        incremental=spec.incremental,
        max_commits=spec.max_commits,
    )


_LAST_CLEANS: dict[str, LastClean] = {}
"""Decoded last cleans by instant file URI: a completed instant file never changes, and its
metadata (every deleted file name) can be large, so a plan reads it once (and decodes only
the fields it needs)."""
_CACHE_SIZE = 256


def clear_last_clean_cache() -> None:
    """Forget decoded last cleans (benchmarks measure a cold plan)."""
    _LAST_CLEANS.clear()


def read_last_clean(storage: Storage, timeline: Timeline) -> LastClean | None:
    """The last completed clean's earliest commit to retain and recorded savepoints."""
    instant = timeline.last_completed_clean()
    if instant is None:
        return None
    path = timeline.file_path(instant, State.COMPLETED)
    uri = storage.uri(path)
    cached = _LAST_CLEANS.get(uri)
    if cached is not None:
        return cached
    retention = decode_clean_retention(read_instant_file(storage, path), uri)
    if retention is None:
        return LastClean(instant.timestamp, "")
    recorded = (retention.extra_metadata or {}).get(SAVEPOINTED_TIMESTAMPS_KEY)
    savepoints = None if recorded is None else tuple(t for t in recorded.split(",") if t)
    last = LastClean(
        instant.timestamp,
        retention.earliest_commit_to_retain or "",
        savepoints,
        retention.last_completed_commit,
    )
    if len(_LAST_CLEANS) >= _CACHE_SIZE:
        _LAST_CLEANS.clear()
    _LAST_CLEANS[uri] = last
    return last


def _written_by(storage: Storage, timeline: Timeline, instant: Instant) -> list[str]:
    path = timeline.file_path(instant, State.COMPLETED)
    data, where = read_instant_file(storage, path), storage.uri(path)
    if instant.completed_action is Action.REPLACE_COMMIT:
        replace = payloads.decode_replace_commit_metadata(data, where)
        replaced = replace.partition_to_replace_file_ids or {}
        return sorted({*(replace.partition_to_write_stats or {}), *replaced})
    return sorted(payloads.decode_commit_metadata(data, where).partition_to_write_stats or {})


def written_partitions(
    storage: Storage, timeline: Timeline, window: Sequence[Instant]
) -> dict[str, list[str]]:
    """Instant time -> the partitions its commit metadata says it wrote (replacecommits add the
    partitions of the file groups they replaced)."""
    return {instant.timestamp: _written_by(storage, timeline, instant) for instant in window}


@dataclass(frozen=True)
class CleanScope:
    """Where the clean looks: the settings, the retention point's scope and, when incremental,
    the partitions the window's commits wrote (None: every partition); the retention point and
    the last clean it was chosen with (None: not read), passed on to the planner."""

    settings: CleanSettings
    scope: ScanScope
    partitions: tuple[str, ...] | None
    retention: RetentionPoint | None = None
    last_clean: LastClean | None = None


def clean_scope(storage: Storage, timeline: Timeline, spec: CleanSpec, now: datetime, tz: str) -> CleanScope:
    settings = clean_settings(spec)
    retention = earliest_commit_to_retain(timeline, settings, now, tz)
    last_clean = read_last_clean(storage, timeline)
    scope = choose_scope(timeline, settings, retention.instant, last_clean)
    if scope.full:
        return CleanScope(settings, scope, None, retention, last_clean)
    written = written_partitions(storage, timeline, scope.window)
    partitions = tuple(partitions_in_window(scope.window, written))
    return CleanScope(settings, scope, partitions, retention, last_clean)


@dataclass(frozen=True)
class ScopeWorkedOut:
    """The scope chosen to decide what to list, for the timeline it was chosen on: the planner
    takes it (rather than choosing again) when it plans on that same timeline."""

    timeline: Timeline
    spec: CleanSpec
    scope: CleanScope


def prepare_clean(
    storage: Storage, timeline: Timeline, spec: CleanSpec, now: datetime, tz: str
) -> tuple[tuple[str, ...] | None, ScopeWorkedOut]:
    """The partitions a clean of this table needs listed (None: all of them), and the scope
    that says so (the retention point, the last clean, the window's partitions)."""
    found = clean_scope(storage, timeline, spec, now, tz)
    return found.partitions, ScopeWorkedOut(timeline, spec, found)


def partitions_to_list(
    storage: Storage, timeline: Timeline, spec: CleanSpec, now: datetime, tz: str
) -> tuple[str, ...] | None:
    """The partitions a clean of this table needs listed (None: all of them)."""
    return prepare_clean(storage, timeline, spec, now, tz)[0]


Scanned = Mapping[str, Iterable[FileInfo]]
"""The listings of the partitions a clean scans."""


def _scoped_listings(table: TableState, partitions: tuple[str, ...] | None) -> Scanned:
    listings = table.snapshot.listings
    if partitions is None or set(partitions) == set(listings):
        return listings
    wanted = set(partitions)
    missing = sorted(wanted - set(listings))
    listed = table.storage.list_dirs_columns(missing) if missing else {}
    if isinstance(listings, Listings):
        return listings.subset(sorted(wanted)).merged(listed)
    scoped: dict[str, Sequence[FileInfo]] = {p: entries for p, entries in listings.items() if p in wanted}
    scoped.update({path: listing.infos() for path, listing in listed.items()})
    return scoped


def _scoped_view(table: TableState, listings: Scanned) -> FileSystemView:
    if listings is table.snapshot.listings:
        return table.view
    return build_view(table.view.timeline, listings, table.view.inputs)


def _projected_scope(spec: CleanSpec, projection: Projection) -> CleanScope:
    """On a projected table (after this plan's rollback, compaction...), every partition is
    scanned: the projected commits have no metadata to read. The reason names the nodes the
    projection follows (a copy-on-write table has no compaction)."""
    reason = f"{projection.description}, so every partition is scanned"
    return CleanScope(clean_settings(spec), ScanScope(True, reason), None)


def whole_table_inputs(table: TableState, why: str, last_clean: LastClean | None = None) -> CleanInputs:
    """The planner's inputs over every partition ``table``'s view lists (``why``: the scope's
    reason), with the table's savepointed files and timezone."""
    snapshot = table.snapshot
    return CleanInputs(
        timeline=snapshot.timeline,
        view=table.view,
        scope=ScanScope(True, why),
        savepointed_files=table.view.inputs.savepointed_files,
        timezone=snapshot.config.timeline_timezone,
        last_clean=last_clean,
    )


def clean_inputs(table: TableState, spec: CleanSpec, now: datetime) -> tuple[CleanInputs, CleanSettings]:
    """The planner's inputs for this table; the view covers only the scanned partitions. What
    choosing the scope computed (the settings, the earliest commit to retain, the last clean)
    is passed on, not computed again."""
    inputs, settings, _ = _scanned_inputs(table, spec, now)
    return inputs, settings


def _scope(table: TableState, spec: CleanSpec, now: datetime, worked_out: object) -> CleanScope:
    """The scope worked out when the listing was chosen, if on this table's timeline and
    settings; else chosen now (a projected table scans every partition)."""
    if table.projection is not None:
        return _projected_scope(spec, table.projection)
    if (
        isinstance(worked_out, ScopeWorkedOut)
        and worked_out.timeline is table.snapshot.timeline
        and worked_out.spec == spec
    ):
        return worked_out.scope
    return clean_scope(
        table.storage, table.snapshot.timeline, spec, now, table.snapshot.config.timeline_timezone
    )


def _scanned_inputs(
    table: TableState, spec: CleanSpec, now: datetime, worked_out: object = None
) -> tuple[CleanInputs, CleanSettings, Scanned]:
    tz = table.snapshot.config.timeline_timezone
    found = _scope(table, spec, now, worked_out)
    listings = _scoped_listings(table, found.partitions)
    last_clean = found.last_clean or read_last_clean(table.storage, table.snapshot.timeline)
    inputs = CleanInputs(
        timeline=table.snapshot.timeline,
        view=_scoped_view(table, listings),
        scope=found.scope,
        savepointed_files=table.view.inputs.savepointed_files,
        timezone=tz,
        last_clean=last_clean,
        retention=found.retention,
    )
    return inputs, found.settings, listings


def plan_clean_node(
    table: TableState, table_spec: TableSpec, now: datetime, worked_out: object = None
) -> CleanPlanResult:
    """What a clean of this table would delete now (the same rules on plan and on apply): on the
    columnar view of the scanned listings (:mod:`.columnar`; the object view for a scan of a
    few thousand files or a table projected after earlier nodes of the plan). ``worked_out``:
    what choosing the partitions to list worked out (:func:`prepare_clean`), if anything."""
    spec = table_spec.settings_of(CleanSpec) or CleanSpec()
    inputs, settings, listings = _scanned_inputs(table, spec, now, worked_out)
    if table.projection is not None:
        return plan_clean(inputs, settings, now)
    return plan_clean(inputs, settings, now, partitions_planner(listings))
