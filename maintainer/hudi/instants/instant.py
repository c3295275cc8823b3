"""Instants: actions, states, instant times, and their file names in both timeline layouts.

Layout 1 (table version 6, ``.hoodie/``): ``<ts>.<action>[.requested|.inflight]``; a commit's
inflight file is ``<ts>.inflight``; compaction completes as ``<ts>.commit`` and log compaction
as ``<ts>.deltacommit``; savepoints have no requested file.

Layout 2 (table versions 8+, ``.hoodie/timeline/``): pending files as in layout 1, completed
files ``<ts>_<completion>.<action>``; compaction completes as ``commit``, log compaction as
``deltacommit``, clustering as ``replacecommit``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.layout import TimelineLayout


class State(str, Enum):
    REQUESTED = "REQUESTED"
    INFLIGHT = "INFLIGHT"
    COMPLETED = "COMPLETED"

    @property
    def rank(self) -> int:
        return _STATE_RANK[self]


_STATE_RANK = {State.REQUESTED: 0, State.INFLIGHT: 1, State.COMPLETED: 2}


class Action(str, Enum):
    COMMIT = "commit"
    DELTA_COMMIT = "deltacommit"
    REPLACE_COMMIT = "replacecommit"
    CLUSTERING = "clustering"
    COMPACTION = "compaction"
    LOG_COMPACTION = "logcompaction"
    CLEAN = "clean"
    ROLLBACK = "rollback"
    SAVEPOINT = "savepoint"
    RESTORE = "restore"
    INDEXING = "indexing"
    SCHEMA_COMMIT = "schemacommit"


WRITE_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})
"""Actions that write data files (pending ones are writes a cleaner or archiver must respect)."""

COMMIT_ACTIONS = frozenset(
    {
        Action.COMMIT,
        Action.DELTA_COMMIT,
        Action.REPLACE_COMMIT,
        Action.COMPACTION,
        Action.CLUSTERING,
        Action.LOG_COMPACTION,
    }
)
"""Actions whose completed instant is a commit of data (compaction/clustering included)."""

TABLE_SERVICE_ACTIONS = frozenset({Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING})

_COMPLETES_AS = {
    Action.COMPACTION: Action.COMMIT,
    Action.LOG_COMPACTION: Action.DELTA_COMMIT,
    Action.CLUSTERING: Action.REPLACE_COMMIT,
}

INSTANT_TIME_FORMAT = "%Y%m%d%H%M%S"
_TIME_RE = re.compile(r"^\d{14}(\d{3})?$")
_PENDING_RE = re.compile(r"^(\d{14,17})\.([a-z]+)\.(requested|inflight)$")
_COMMIT_INFLIGHT_RE = re.compile(r"^(\d{14,17})\.inflight$")
_COMPLETED_V1_RE = re.compile(r"^(\d{14,17})\.([a-z]+)$")
_COMPLETED_V2_RE = re.compile(r"^(\d{14,17})_(\d{14,17})\.([a-z]+)$")


def is_instant_time(text: str) -> bool:
    return bool(_TIME_RE.match(text))


def parse_instant_time(text: str) -> datetime:
    """A naive datetime of an instant time (``yyyyMMddHHmmss[SSS]``)."""
    if not is_instant_time(text):
        raise ValueError(f"not an instant time: {text!r}")
    moment = datetime.strptime(text[:14], INSTANT_TIME_FORMAT)
    millis = int(text[14:]) if len(text) == 17 else 0
    return moment + timedelta(milliseconds=millis)


def format_instant_time(moment: datetime) -> str:
    """``yyyyMMddHHmmssSSS`` of a naive (wall-clock) datetime."""
    return moment.strftime(INSTANT_TIME_FORMAT) + f"{moment.microsecond // 1000:03d}"


def wall_clock_in_timezone(now: datetime, timeline_timezone: str) -> datetime:
    """The naive wall-clock time in the table's timeline timezone (``UTC`` or ``LOCAL``)."""
    aware = now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    if timeline_timezone.upper() == "UTC":
        return aware.astimezone(timezone.utc).replace(tzinfo=None)
    return aware.astimezone().replace(tzinfo=None)


def instant_time_to_epoch_ms(text: str, timeline_timezone: str = "UTC") -> int:
    moment = parse_instant_time(text)
    if timeline_timezone.upper() == "UTC":
        return int(moment.replace(tzinfo=timezone.utc).timestamp() * 1000)
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True, slots=True, order=False)
class Instant:
    """One instant: its (requested) time, action and state, and completion time on layout 2.

    ``action`` is the action of the pending states (``compaction`` stays ``compaction``
    even when completed; :attr:`completed_action` gives the action of the completed file).
    """

    timestamp: str
    action: Action
    state: State
    completion_time: str | None = None

    @property
    def is_completed(self) -> bool:
        return self.state is State.COMPLETED

    @property
    def is_pending(self) -> bool:
        return self.state is not State.COMPLETED

    @property
    def completed_action(self) -> Action:
        return _COMPLETES_AS.get(self.action, self.action)

    def with_state(self, state: State, completion_time: str | None = None) -> Instant:
        return Instant(self.timestamp, self.action, state, completion_time)

    def sort_key(self) -> tuple[str, int, str]:
        return (self.timestamp, self.state.rank, self.action.value)

    def file_name(self, layout: TimelineLayout | int) -> str:
        return instant_file_name(self, layout)

    def __str__(self) -> str:
        suffix = f" (completed {self.completion_time})" if self.completion_time else ""
        return f"{self.timestamp}.{self.action.value} [{self.state.value}]{suffix}"


def instant_file_name(instant: Instant, layout: TimelineLayout | int) -> str:
    """The timeline file name of an instant in the given layout (a number is read as one)."""
    ts, action = instant.timestamp, instant.action
    if instant.state is State.REQUESTED:
        return f"{ts}.{action.value}.requested"
    if instant.state is State.INFLIGHT:
        return f"{ts}.inflight" if action is Action.COMMIT else f"{ts}.{action.value}.inflight"
    return TimelineLayout(layout).completed_file_name(
        ts, instant.completed_action.value, instant.completion_time
    )


def _action(text: str, file_name: str) -> Action:
    try:
        return Action(text)
    except ValueError as exc:
        raise CorruptFileError(f"unknown instant action {text!r} in timeline file {file_name}") from exc


RESERVED_DATE = "00000000"
"""The date part of Hudi's reserved instant times (``00000000000000`` the initial instant,
``…01`` and ``…02`` bootstraps, ``00000000000000000``… the metadata table's initialisation)."""
_TIME_HINT = (
    "Hudi names instant files after a real date and time (yyyyMMddHHmmss, then milliseconds): "
    "this file was not written by Hudi; move it out of the timeline folder, or restore the "
    "timeline from a backup of the table, then plan again"
)


def _checked_time(text: str, file_name: str) -> str:
    """``text`` (14 to 17 digits) when it is a real date and time or a reserved time;
    :class:`CorruptFileError` naming the file otherwise (month 13, day 32, hour 25...)."""
    if text.startswith(RESERVED_DATE):
        return text
    try:
        datetime(
            int(text[:4]), int(text[4:6]), int(text[6:8]), int(text[8:10]), int(text[10:12]), int(text[12:14])
        )
    except ValueError as exc:
        raise CorruptFileError(
            f"the instant time {text} in the file name is not a date and time ({exc})",
            where=file_name,
            hint=_TIME_HINT,
        ) from exc
    return text


def parse_instant_file_name(file_name: str) -> Instant | None:
    """Parse a timeline file name; None for files that are not instants (``hoodie.properties``…).

    A completed ``commit`` that was a compaction (or ``replacecommit`` from clustering) cannot
    be told from its name alone; :mod:`maintainer.hudi.instants.timeline` resolves that from the
    pending files of the same time.
    """
    match = _PENDING_RE.match(file_name)
    if match:
        ts, action, state = match.groups()
        return Instant(_checked_time(ts, file_name), _action(action, file_name), State(state.upper()))
    match = _COMMIT_INFLIGHT_RE.match(file_name)
    if match:
        return Instant(_checked_time(match.group(1), file_name), Action.COMMIT, State.INFLIGHT)
    match = _COMPLETED_V2_RE.match(file_name)
    if match:
        ts, completion, action = match.groups()
        checked = _checked_time(ts, file_name), _checked_time(completion, file_name)
        return Instant(checked[0], _action(action, file_name), State.COMPLETED, checked[1])
    match = _COMPLETED_V1_RE.match(file_name)
    if match:
        ts, action = match.groups()
        return Instant(_checked_time(ts, file_name), _action(action, file_name), State.COMPLETED)
    return None
