"""Time travel (``as.of.instant``) as Hudi's readers take it: the forms of the time they accept,
and the times they refuse because the table no longer holds that state.

* Forms (Hudi's ``HoodieSqlCommonUtils.formatQueryInstant``): an instant time
  ``yyyyMMddHHmmss[SSS]``; ``yyyy-MM-dd HH:mm:ss[.SSS]``; ``yyyy-MM-dd`` (that day's first
  millisecond). A time to the second means the end of that second (``999``), as Hudi's
  ``getInstantForDateString`` and ``fixInstantTimeCompatibility`` complete it. Anything else
  is refused.
* Refusals (Hudi's ``TimelineUtils.validateTimestampAsOf``): a time at or after the first
  incomplete write (its outcome is not known yet); a time before the earliest commit the last
  clean retained (the older file versions are gone); with a clean that recorded none (cleaning
  by file versions), a time before the first completed commit of the active timeline. We also
  refuse the latter on a table without a clean whose older commits were archived: the active
  timeline no longer says what was there.
"""

from __future__ import annotations

import re
from datetime import datetime

from maintainer.errors import UsageError
from maintainer.hudi.instants.instant import State, format_instant_time, is_instant_time, parse_instant_time
from maintainer.hudi.payloads.clean_retention import decode_clean_retention
from maintainer.hudi.table.state import TableState

FORMS = "'yyyyMMddHHmmss[SSS]', 'yyyy-MM-dd HH:mm:ss[.SSS]' or 'yyyy-MM-dd'"
_DATE_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_END_OF_SECOND = "999"
CLEANED = (
    "the cleaner cleaned up the state of this time: it is before the earliest commit the last clean retained"
)
RETAIN_HINT = "time travel reaches back only as far as the cleaner retains commits"


def as_of_instant(text: str) -> str:
    """The instant time ``text`` names, in one of Hudi's forms; a UsageError otherwise."""
    value = text.strip()
    try:
        if is_instant_time(value):
            parse_instant_time(value)  # a real date and time
            return value if len(value) == len("yyyyMMddHHmmssSSS") else value + _END_OF_SECOND
        if _DATE_TIME_RE.match(value):
            if len(value) == len("yyyy-MM-dd HH:mm:ss"):
                value += f".{_END_OF_SECOND}"
            return format_instant_time(datetime.strptime(value, "%Y-%m-%d %H:%M:%S.%f"))
        if _DATE_RE.match(value):
            return format_instant_time(datetime.strptime(value, "%Y-%m-%d"))
    except ValueError:
        pass
    raise UsageError(
        f"--as-of {text!r} is not a time Hudi's time travel accepts",
        hint=f"give {FORMS} (e.g. 20251220210123755 or '2025-12-20 21:01:23')",
    )


def check_time_travel(table: TableState, instant: str) -> None:
    """Refuse a time travel to ``instant`` where Hudi's readers refuse it (see the module)."""
    where = table.snapshot.base_uri
    incomplete = first_incomplete_write(table)
    if incomplete is not None and instant >= incomplete:
        raise UsageError(
            f"time travel's timestamp {instant} must be earlier than the first incomplete commit "
            f"{incomplete}",
            where=where,
            hint="the outcome of that write is not known yet: roll it back or let it finish, or "
            "travel to an earlier time",
        )
    ectr, cleaned = _earliest_commit_to_retain(table)
    if ectr is not None and instant < ectr:
        raise UsageError(f"{CLEANED} ({ectr}); {instant} is before it", where=where, hint=RETAIN_HINT)
    completed = table.snapshot.timeline.completed_commits()
    first = completed[0].timestamp if completed else None
    limited = (cleaned and ectr is None) or (not cleaned and _has_archived_history(table))
    if limited and first is not None and instant < first:
        raise UsageError(
            f"{instant} is before the first commit the table retains ({first}): older commits were "
            "cleaned or archived",
            where=where,
            hint="ensure sufficient commits are retained (uncleaned and un-archived) for time travel",
        )


def first_incomplete_write(table: TableState) -> str | None:
    """The requested time of the first pending commit, deltacommit or replacecommit that is not a
    clustering (Hudi's "first incomplete commit"; pending compactions do not count)."""
    clustering = {op.instant_time for op in table.view.inputs.pending_clustering.values()}
    pending = table.snapshot.timeline.pending_writes()
    return next((i.timestamp for i in pending if i.timestamp not in clustering), None)


def _earliest_commit_to_retain(table: TableState) -> tuple[str | None, bool]:
    """The earliest commit to retain the last completed clean recorded (None: none recorded),
    and whether the table has a completed clean at all."""
    timeline = table.snapshot.timeline
    clean = timeline.last_completed_clean()
    if clean is None:
        return None, False
    path = timeline.file_path(clean, State.COMPLETED)
    retention = decode_clean_retention(table.storage.read_bytes(path), table.storage.uri(path))
    return (retention.earliest_commit_to_retain or None) if retention else None, True


def _has_archived_history(table: TableState) -> bool:
    """Do instants of this table live in its archived timeline (any file in the archive folder)?"""
    return bool(table.storage.list_dir(table.snapshot.config.archive_dir))
