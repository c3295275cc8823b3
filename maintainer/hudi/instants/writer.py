"""The one way anything writes an instant into a table's timeline.

Enforces Hudi's rules: requested -> inflight -> completed (savepoints start inflight), every
state file written once (never overwritten, never renamed) and whole (on local disk and HDFS
through a temporary file renamed into place, on object stores one conditional PUT: a crash never
leaves a cut-short instant file), and instant times in the table's
timeline timezone strictly greater than every instant time and completion time already in
the table (re-read from storage before a new time is issued).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from maintainer.clock import Clock, utc_now
from maintainer.errors import FileExistsInStorageError, TimelineWriteError
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.heartbeat import (
    DEFAULT_INTERVAL_S,
    InstantHeartbeat,
    delete_heartbeat,
    keep_beating,
)
from maintainer.hudi.instants.instant import (
    Action,
    Instant,
    State,
    format_instant_time,
    instant_file_name,
    parse_instant_time,
    wall_clock_in_timezone,
)
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.snapshot import load_timeline
from maintainer.logs import fields, get_logger
from maintainer.storage import Storage

log = get_logger(__name__)

_STARTS_INFLIGHT = frozenset({Action.SAVEPOINT})


class TimelineWriter:
    """Writes instant files of one table; not thread-safe (one writer per table, under a lock)."""

    def __init__(
        self,
        storage: Storage,
        config: TableConfig,
        clock: Clock = utc_now,
        heartbeat_interval_s: float = DEFAULT_INTERVAL_S,
    ) -> None:
        self.storage = storage
        self.config = config
        self.clock = clock
        self.heartbeat_interval_s = heartbeat_interval_s
        self._last_issued: str | None = None
        self._beating: dict[str, InstantHeartbeat] = {}

    # -- reading ---------------------------------------------------------------------------
    def timeline(self) -> Timeline:
        return load_timeline(self.storage, self.config)

    def _path(self, name: str) -> str:
        return f"{self.config.timeline_dir}/{name}"

    # -- instant times -----------------------------------------------------------------------
    def new_instant_time(self) -> str:
        """A time strictly greater than anything in the timeline and anything issued before."""
        now = format_instant_time(wall_clock_in_timezone(self.clock(), self.config.timeline_timezone))
        floor = max(t for t in (self.timeline().max_instant_time(), self._last_issued, "") if t is not None)
        issued = now if now > floor else _next_millisecond(floor)
        self._last_issued = issued
        return issued

    # -- heartbeats --------------------------------------------------------------------------
    @contextmanager
    def heartbeat(self, instant_time: str) -> Iterator[InstantHeartbeat]:
        """Keep the heartbeat of the pending instant ``instant_time`` while the block runs (see
        :mod:`maintainer.hudi.instants.heartbeat`): wrap each span in which this tool owns a pending
        instant. Completing or removing the instant deletes it; an exception leaves it to expire."""
        beat = InstantHeartbeat(self.storage, instant_time, self.heartbeat_interval_s)
        self._beating[instant_time] = beat
        try:
            with keep_beating(beat):
                yield beat
        finally:
            self._beating.pop(instant_time, None)

    def _end_heartbeat(self, instant_time: str) -> None:
        """The instant is no longer pending: stop its heartbeat and delete the file."""
        beat = self._beating.get(instant_time)
        if beat is not None:
            beat.delete()
        else:
            delete_heartbeat(self.storage, instant_time)

    # -- transitions -------------------------------------------------------------------------
    def create_requested(
        self, action: Action, content: bytes = b"", instant_time: str | None = None, mirrored: bool = False
    ) -> Instant:
        """Start an instant (``.requested``); savepoints start with :meth:`create_inflight`.
        ``mirrored``: the metadata table's instant of a data-table instant takes that instant's
        time, which may be older than the metadata table's newest instant (a Hudi writer may have
        written there since the data instant started)."""
        if action in _STARTS_INFLIGHT:
            raise TimelineWriteError(f"a {action.value} has no requested state; start it inflight")
        time = instant_time if mirrored and instant_time is not None else self._checked_new_time(instant_time)
        instant = Instant(time, action, State.REQUESTED)
        self._write(instant, content)
        return instant

    def create_inflight(
        self, action: Action, content: bytes = b"", instant_time: str | None = None
    ) -> Instant:
        """Start an instant directly inflight (savepoints only, as Hudi does)."""
        if action not in _STARTS_INFLIGHT:
            raise TimelineWriteError(f"a {action.value} must start requested")
        instant = Instant(
            self._checked_new_time(instant_time, allow_existing_commit=True), action, State.INFLIGHT
        )
        self._write(instant, content)
        return instant

    def transition_to_inflight(self, requested: Instant, content: bytes = b"") -> Instant:
        self._require_state(requested, State.REQUESTED, State.INFLIGHT)
        inflight = requested.with_state(State.INFLIGHT)
        self._write(inflight, content)
        return inflight

    def complete(self, inflight: Instant, content: bytes) -> Instant:
        """Write the completed file; on layout 2 with a fresh completion time."""
        self._require_state(inflight, State.INFLIGHT, State.COMPLETED)
        completion = self.new_instant_time() if self.config.timeline_layout.records_completion_time else None
        completed = inflight.with_state(State.COMPLETED, completion)
        self._write(completed, content)
        self._end_heartbeat(completed.timestamp)
        return completed

    def revert_inflight_to_requested(self, inflight: Instant) -> Instant:
        """Undo a failed table-service attempt (compaction/clustering): delete its inflight file."""
        self._require_state(inflight, State.INFLIGHT, State.REQUESTED)
        self.storage.delete(self._path(instant_file_name(inflight, self.config.timeline_layout)))
        self._end_heartbeat(inflight.timestamp)
        return inflight.with_state(State.REQUESTED)

    def delete_instant(self, instant: Instant, timeline: Timeline | None = None) -> list[str]:
        """Remove every state file of an instant: requested, then inflight, then completed, so
        that a crash in between leaves a pending instant Hudi (or the next run) can handle."""
        entry = (timeline or self.timeline()).entry(instant.timestamp, instant.action)
        if entry is None:
            return []
        deleted = []
        for state in (State.REQUESTED, State.INFLIGHT, State.COMPLETED):
            name = entry.state_files.get(state)
            if name is not None and self.storage.delete(self._path(name)):
                deleted.append(name)
        self._end_heartbeat(instant.timestamp)
        return deleted

    # -- checks ------------------------------------------------------------------------------
    def _checked_new_time(self, instant_time: str | None, allow_existing_commit: bool = False) -> str:
        if instant_time is None:
            return self.new_instant_time()
        timeline = self.timeline()
        if allow_existing_commit:
            if instant_time not in timeline.completed_commit_times():
                raise TimelineWriteError(
                    f"instant {instant_time} is not a completed commit of the table",
                    where=self.storage.base_uri,
                    hint="savepoints can only be created at completed commits",
                )
            return instant_time
        latest = timeline.max_instant_time()
        if latest is not None and instant_time <= latest:
            raise TimelineWriteError(
                f"instant time {instant_time} is not greater than the latest time in the timeline ({latest})",
                where=self.storage.base_uri,
                hint="another writer may have committed since the plan was made; plan again",
            )
        return instant_time

    def _require_state(self, instant: Instant, expected: State, target: State) -> None:
        if instant.state is not expected:
            raise TimelineWriteError(
                f"illegal transition of {instant.timestamp}.{instant.action.value}: "
                f"{instant.state.value} -> {target.value} (it must be {expected.value} first)",
                where=self.storage.base_uri,
            )
        entry = self.timeline().entry(instant.timestamp, instant.action)
        if entry is None or expected not in entry.state_files:
            raise TimelineWriteError(
                f"{instant.timestamp}.{instant.action.value} has no {expected.value} file in the timeline",
                where=self.storage.base_uri,
                hint="the timeline changed under us (another writer, or a manual edit); re-read the table",
            )

    def _write(self, instant: Instant, content: bytes) -> None:
        name = instant_file_name(instant, self.config.timeline_layout)
        try:
            self.storage.write_if_absent(self._path(name), content)
            figures = {
                "action": instant.action.value,
                "state": instant.state.value,
                "path": self.storage.base_uri,
            }
            log.debug(
                f"wrote {name}", extra=fields(instant=instant.timestamp, event="instant_written", **figures)
            )
        except FileExistsInStorageError as exc:
            raise TimelineWriteError(
                f"instant file {name} already exists; instant files are written once",
                where=self.storage.uri(self._path(name)),
                hint="another writer holds this instant; re-read the table before retrying",
            ) from exc


def _next_millisecond(instant_time: str) -> str:
    return format_instant_time(parse_instant_time(instant_time) + timedelta(milliseconds=1))
