"""Orphan files: data files and leftovers no instant of the table accounts for (Hudi's
``HoodieRepairTool`` calls the first kind "dangling"). Reads only.

A data file (base or log file, found by listing the partitions) is an orphan when:

* its instant is on no timeline: neither completed nor pending, and not older than the active
  timeline (a failed write's file its rollback did not remove, or a write never recorded); or
* its instant is completed but its write stats do not list it, nor does a completed rollback
  (a failed task attempt's file left after a crash, or a retried write's first file), as
  ``RepairUtils.findInstantFilesToRemove`` decides.

Never an orphan, whatever it looks like:

* a file of a pending instant (its writer may still complete it; a failed write is the rollback
  service's), and on table version 6, while a write or log compaction is pending, any log file
  the timeline does not list (v6 log files are named by their slice's base instant, so the
  pending writer appending to one cannot be told from its name);
* a file older than the active timeline: its instant is archived, and this reads only the active
  timeline (``HoodieRepairTool`` reads the archived one too; we leave those files alone and
  count them);
* a file younger than ``min_age`` (a writer may have written it and not committed yet).

Marker folders ``.hoodie/.temp/<instant>`` of instants that are not pending are leftovers too
(Hudi deletes them when it completes or rolls back an instant)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName, is_junk, is_partition_metadata
from maintainer.hudi.instants.instant import Action, is_instant_time
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.hudi.table.state import TableState
from maintainer.storage import FileInfo

DEFAULT_MIN_AGE = timedelta(days=7)
"""As Delta's VACUUM retention: a file younger than this is never an orphan."""

Kind = Literal["dangling", "not_in_write_stats", "markers"]
_V6_APPENDERS = frozenset({Action.DELTA_COMMIT, Action.LOG_COMPACTION})


@dataclass(frozen=True, slots=True)
class OrphanFile:
    path: str
    """Relative to the table."""
    size: int
    age_seconds: int | None
    kind: Kind
    reason: str


@dataclass(frozen=True, slots=True)
class OrphanScan:
    orphans: tuple[OrphanFile, ...]
    pending: int
    """Files left alone: a pending instant may still complete them."""
    archived: int
    """Files left alone: older than the active timeline."""
    young: int
    """Files left alone: younger than ``min_age``."""

    @property
    def bytes(self) -> int:
        return sum(o.size for o in self.orphans)


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the rules need of the timeline."""

    completed: dict[str, str]
    """Instant time -> action of the completed instants."""
    pending: frozenset[str]
    write_start: str | None
    v6_appending: bool
    """Table version 6 with a write or log compaction pending."""


def _facts(table: TableState) -> _Facts:
    timeline = table.snapshot.timeline
    pending = timeline.pending()
    v6 = timeline.layout.logs_name_their_slice
    return _Facts(
        completed={i.timestamp: i.action.value for i in timeline.completed()},
        pending=frozenset(i.timestamp for i in pending),
        write_start=timeline.write_timeline_start(),
        v6_appending=v6 and any(i.action in _V6_APPENDERS for i in pending),
    )


def _age(info: FileInfo, now: datetime) -> int | None:
    return None if info.mtime_ms is None else max(0, int(now.timestamp()) - info.mtime_ms // 1000)


Verdict = Literal["pending", "archived"] | tuple[Kind, str] | None
"""What one listed file is: accounted for (None), left alone (why), or an orphan (kind, reason)."""


def find_orphans(
    table: TableState, referenced: frozenset[str], now: datetime, min_age: timedelta = DEFAULT_MIN_AGE
) -> OrphanScan:
    """The orphans of the table's listed partitions; ``referenced``: the files its completed
    instants account for (``TableState.referenced``, or ``Inspection.referenced``)."""
    facts = _facts(table)
    orphans: list[OrphanFile] = []
    left_alone = {"pending": 0, "archived": 0, "young": 0}
    for infos in table.snapshot.listings.values():
        for info in infos:
            verdict = _judge(info, facts, referenced)
            if verdict is None:
                continue
            if isinstance(verdict, str):
                left_alone[verdict] += 1
                continue
            age = _age(info, now)
            if age is not None and age < min_age.total_seconds():
                left_alone["young"] += 1
                continue
            orphans.append(OrphanFile(info.path, info.size, age, *verdict))
    orphans += _marker_leftovers(table, facts, now, min_age)
    return OrphanScan(
        tuple(sorted(orphans, key=lambda o: o.path)),
        left_alone["pending"],
        left_alone["archived"],
        left_alone["young"],
    )


def _judge(info: FileInfo, facts: _Facts, referenced: frozenset[str]) -> Verdict:
    name = info.name
    if info.is_dir or is_junk(name) or is_partition_metadata(name):
        return None
    parsed = BaseFileName.parse(name) or LogFileName.parse(name)
    if parsed is None or info.path in referenced:
        return None
    instant = parsed.instant_time
    if instant in facts.pending or (facts.v6_appending and isinstance(parsed, LogFileName)):
        return "pending"
    if facts.write_start is None or instant < facts.write_start:
        return "archived"
    action = facts.completed.get(instant)
    if action is not None:
        return (
            "not_in_write_stats",
            f"the completed {action} {instant} does not list it in its write stats, nor does a "
            "rollback (a failed task attempt's file, or a retried write's first one)",
        )
    return (
        "dangling",
        f"its instant {instant} is neither completed nor pending (a failed write's file its "
        "rollback did not remove, or a write never recorded)",
    )


def _marker_leftovers(
    table: TableState, facts: _Facts, now: datetime, min_age: timedelta
) -> list[OrphanFile]:
    """The files of ``.hoodie/.temp/<instant>`` folders of instants that are not pending."""
    storage = table.storage
    found: list[OrphanFile] = []
    for folder in storage.list_dir(MARKERS_DIR):
        instant = folder.name
        if not folder.is_dir or not is_instant_time(instant) or instant in facts.pending:
            continue
        state = "completed" if instant in facts.completed else "rolled back or never recorded"
        for info in storage.list_recursive(folder.path):
            age = _age(info, now)
            if info.is_dir or (age is not None and age < min_age.total_seconds()):
                continue
            reason = f"a marker of {instant}, which is {state}: Hudi deletes them when an instant ends"
            found.append(OrphanFile(info.path, info.size, age, "markers", reason))
    return found
