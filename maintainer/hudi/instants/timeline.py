"""The active timeline: every instant of a table with its state, for both layouts.

Each instant appears once, at its latest state; ``state_files`` keeps the file names of all
its states (layout 1 keeps every state file, layout 2 too until archival). Views mirror
Hudi's: completed commits, pending writes, pending table services, savepoints, last clean.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.instant import (
    COMMIT_ACTIONS,
    TABLE_SERVICE_ACTIONS,
    WRITE_ACTIONS,
    Action,
    Instant,
    State,
    format_instant_time,
    instant_file_name,
    parse_instant_file_name,
    parse_instant_time,
    wall_clock_in_timezone,
)
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.storage.limits import MAX_INSTANT_FILE_BYTES, SizedStorage, read_capped

_SERVICE_FOR_COMPLETED = {
    Action.COMMIT: Action.COMPACTION,
    Action.DELTA_COMMIT: Action.LOG_COMPACTION,
    Action.REPLACE_COMMIT: Action.CLUSTERING,
}


class CompletionTimeSource(Protocol):
    """Where completion times of archived instants come from (layout 2: the LSM history,
    :class:`maintainer.hudi.instants.archived.ArchivedCompletionTimes`)."""

    def completion_time(self, instant: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """An instant and the names of the timeline files of each of its states."""

    instant: Instant
    state_files: Mapping[State, str]

    @property
    def timestamp(self) -> str:
        return self.instant.timestamp


def _resolve_service_action(instant: Instant, pending_keys: set[tuple[str, Action]]) -> Instant:
    """A completed commit/deltacommit/replacecommit that finished a compaction, log compaction
    or clustering keeps the service's action, as Hudi's timeline does."""
    service = _SERVICE_FOR_COMPLETED.get(instant.action)
    if instant.is_completed and service is not None and (instant.timestamp, service) in pending_keys:
        return Instant(instant.timestamp, service, instant.state, instant.completion_time)
    return instant


def _group(parsed: Iterable[tuple[str, Instant]]) -> list[TimelineEntry]:
    items = list(parsed)
    pending_keys = {(i.timestamp, i.action) for _, i in items if i.is_pending}
    grouped: dict[tuple[str, Action], dict[State, tuple[str, Instant]]] = {}
    for name, raw in items:
        instant = _resolve_service_action(raw, pending_keys)
        grouped.setdefault((instant.timestamp, instant.action), {})[instant.state] = (name, instant)
    entries = []
    for states in grouped.values():
        latest = max(states, key=lambda s: s.rank)
        entries.append(TimelineEntry(states[latest][1], {s: n for s, (n, _) in states.items()}))
    entries.sort(key=lambda e: e.instant.sort_key())
    return entries


@dataclass(frozen=True)
class Timeline:
    """The active timeline of one table, sorted by instant time."""

    layout: TimelineLayout
    entries: tuple[TimelineEntry, ...]
    directory: str = ".hoodie"
    archived: CompletionTimeSource | None = field(default=None, repr=False, compare=False)
    """Completion times of instants archived before the active timeline (layout 2), asked only
    for instants older than the write timeline's start."""
    _by_key: Mapping[tuple[str, Action], TimelineEntry] = field(init=False, repr=False, compare=False)
    _write_start: str | None = field(init=False, repr=False, compare=False)
    _completions: dict[str, str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", TimelineLayout(self.layout))
        object.__setattr__(self, "_by_key", {(e.timestamp, e.instant.action): e for e in self.entries})
        writes = (e.timestamp for e in self.entries if e.instant.action in COMMIT_ACTIONS)
        object.__setattr__(self, "_write_start", next(writes, None))
        object.__setattr__(self, "_completions", None)

    @classmethod
    def from_file_names(
        cls,
        names: Iterable[str],
        layout: TimelineLayout | int,
        directory: str = ".hoodie",
        archived: CompletionTimeSource | None = None,
    ) -> Timeline:
        """Build from the names in the timeline directory; other files are ignored."""
        layout = TimelineLayout(layout)
        parsed = []
        for name in names:
            try:
                instant = parse_instant_file_name(name)
            except CorruptFileError as exc:  # an impossible date, an unknown action
                raise CorruptFileError(exc.message, where=f"{directory}/{name}", hint=exc.hint) from exc
            if instant is None:
                continue
            if layout.records_completion_time and instant.is_completed and instant.completion_time is None:
                raise CorruptFileError(
                    f"completed instant file {name} has no completion time, but the table uses "
                    "timeline layout 2",
                    where=f"{directory}/{name}",
                    hint="check hoodie.timeline.layout.version in hoodie.properties",
                )
            parsed.append((name, instant))
        return cls(layout, tuple(_group(parsed)), directory, archived)

    def without_files(self, names: Iterable[str]) -> Timeline:
        """The timeline as if the state files ``names`` were not there."""
        dropped = set(names)
        kept = [name for e in self.entries for name in e.state_files.values() if name not in dropped]
        return Timeline.from_file_names(kept, self.layout, self.directory, self.archived)

    # -- basic access ------------------------------------------------------------------
    @property
    def instants(self) -> tuple[Instant, ...]:
        return tuple(e.instant for e in self.entries)

    def __iter__(self) -> Iterator[Instant]:
        return iter(self.instants)

    def __len__(self) -> int:
        return len(self.entries)

    def entry(self, timestamp: str, action: Action) -> TimelineEntry | None:
        return self._by_key.get((timestamp, action))

    def file_path(self, instant: Instant, state: State | None = None) -> str:
        """The path (relative to the table base) of one state file of an instant."""
        wanted = state or instant.state
        entry = self.entry(instant.timestamp, instant.action)
        name = entry.state_files.get(wanted) if entry else None
        if name is None:
            name = instant_file_name(instant.with_state(wanted, instant.completion_time), self.layout)
        return f"{self.directory}/{name}"

    def filter(self, keep: Iterable[TimelineEntry]) -> Timeline:
        """The timeline of ``keep`` (same layout, directory and archived timeline)."""
        return Timeline(self.layout, tuple(keep), self.directory, self.archived)

    # -- views ---------------------------------------------------------------------------
    def completed(self) -> list[Instant]:
        return [i for i in self.instants if i.is_completed]

    def pending(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending]

    def completed_commits(self) -> list[Instant]:
        """Completed commit, deltacommit and replacecommit instants, compaction and
        clustering included (Hudi's commits timeline)."""
        return [i for i in self.instants if i.is_completed and i.action in COMMIT_ACTIONS]

    def pending_writes(self) -> list[Instant]:
        """Pending commit, deltacommit and replacecommit instants (not table services)."""
        return [i for i in self.instants if i.is_pending and i.action in WRITE_ACTIONS]

    def pending_table_services(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action in TABLE_SERVICE_ACTIONS]

    def pending_compactions(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action is Action.COMPACTION]

    def pending_log_compactions(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action is Action.LOG_COMPACTION]

    def pending_clustering(self) -> list[Instant]:
        """Pending clustering (layout 2 ``clustering``; layout 1 pending ``replacecommit``
        whose requested plan says CLUSTER is decided by the caller from its payload)."""
        return [i for i in self.instants if i.is_pending and i.action is Action.CLUSTERING]

    def pending_replacecommits(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action is Action.REPLACE_COMMIT]

    def savepoints(self) -> list[Instant]:
        return [i for i in self.instants if i.is_completed and i.action is Action.SAVEPOINT]

    def of_action(self, *actions: Action) -> list[Instant]:
        return [i for i in self.instants if i.action in actions]

    def last_completed(self, *actions: Action) -> Instant | None:
        matching = [i for i in self.completed() if i.action in actions]
        return matching[-1] if matching else None

    def last_completed_clean(self) -> Instant | None:
        return self.last_completed(Action.CLEAN)

    def pending_cleans(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action is Action.CLEAN]

    def pending_rollbacks(self) -> list[Instant]:
        return [i for i in self.instants if i.is_pending and i.action is Action.ROLLBACK]

    # -- questions Hudi's readers ask ----------------------------------------------------
    def first_instant_time(self) -> str | None:
        return self.entries[0].timestamp if self.entries else None

    def completed_commit_times(self) -> set[str]:
        return {i.timestamp for i in self.completed_commits()}

    def write_timeline_start(self) -> str | None:
        """The first instant of the write timeline (commit, deltacommit, replacecommit,
        compaction, log compaction, clustering; pending ones included): where the active
        timeline starts for data files."""
        return self._write_start

    def is_before_start(self, timestamp: str) -> bool:
        """True where ``timestamp`` precedes the write timeline: such files were written by
        instants already archived, so they count as committed.

        Clean, rollback and savepoint instants do not count: archival keeps them by their own
        rules, so one may be older than commits that were archived (Hudi also starts the
        timeline at the first commit). Pending writes do count, unlike in Hudi, so that the
        leftovers of a failed write older than every completed commit stay uncommitted."""
        first = self._write_start
        return first is not None and timestamp < first

    def is_committed_write(self, timestamp: str) -> bool:
        """Is data written at ``timestamp`` committed (completed, or older than the timeline)?"""
        return timestamp in self.completed_commit_times() or self.is_before_start(timestamp)

    def completion_times(self) -> dict[str, str]:
        """Requested time -> completion time of the active completed commits (layout 1: itself).
        Computed once per timeline; callers must not change it."""
        found = self._completions
        if found is None:
            found = {i.timestamp: i.completion_time or i.timestamp for i in self.completed_commits()}
            object.__setattr__(self, "_completions", found)
        return found

    def archived_completion_time(self, timestamp: str) -> str | None:
        """The completion time of an instant older than the write timeline's start, from the
        archived timeline (None: not older, no archived timeline, or not in it).

        Hudi's ``CompletionTimeQueryViewV2.getCompletionTime`` reads the archived timeline for
        instants before the active timeline it loaded, and only then; the history is read
        lazily, so a table whose files are all younger than the active timeline never reads it.
        """
        if self.archived is None or not self.is_before_start(timestamp):
            return None
        return self.archived.completion_time(timestamp)

    def completion_time(self, timestamp: str) -> str | None:
        """When the commit requested at ``timestamp`` completed: from the active timeline, else
        (older than it) from the archived timeline; None when unknown (pending, or not found)."""
        return self.completion_times().get(timestamp) or self.archived_completion_time(timestamp)

    def max_instant_time(self) -> str | None:
        """The greatest instant time or completion time in the timeline (new instants
        must be strictly greater)."""
        times = [e.timestamp for e in self.entries]
        times += [e.instant.completion_time for e in self.entries if e.instant.completion_time]
        return max(times) if times else None

    def as_of(self, timestamp: str) -> Timeline:
        """The timeline restricted to instants whose time is at or before ``timestamp``."""
        return self.filter(e for e in self.entries if e.timestamp <= timestamp)


def read_instant_file(storage: SizedStorage, path: str) -> bytes:
    """An instant file's bytes, at most :data:`~maintainer.storage.limits.MAX_INSTANT_FILE_BYTES`
    (a larger one is a :class:`CorruptFileError` naming it, its bytes never read)."""
    return read_capped(storage, path, MAX_INSTANT_FILE_BYTES, what="instant file", error=CorruptFileError)


def next_instant_time(timeline: Timeline, now: datetime, timezone: str) -> str:
    """``now`` in the table's timezone, moved past every time already in the timeline."""
    issued = format_instant_time(wall_clock_in_timezone(now, timezone))
    latest = timeline.max_instant_time()
    if latest is not None and issued <= latest:
        issued = format_instant_time(parse_instant_time(latest) + timedelta(milliseconds=1))
    return issued
