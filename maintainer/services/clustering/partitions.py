"""Which partitions a clustering considers (Hudi's ``BaseTableServicePlanActionExecutor
.getPartitions``, ``PartitionAwareClusteringPlanStrategy`` and ``ClusteringPlanPartitionFilter``),
then maintainer's rule for concurrent writers:

1. the listing: on table version 8+ (incremental table services, Hudi 1.x's default), once a
   completed clustering is on the active timeline, only the partitions that completed commits
   wrote since it (deltacommits and replacecommits on merge-on-read, commits and replacecommits
   on copy-on-write, judged by completion time, the clustering itself left out) plus its plan's
   ``missingSchedulePartitions``; otherwise every partition. Hudi lists that set in hash order,
   maintainer in sorted order;
2. ``partitions`` replaces the listing as given (on 8+ the previous plan's missing partitions
   stay missing); otherwise ``partition_regex`` keeps the partitions it matches whole;
3. the filter mode: recent_days sorts descending, skips ``skip_from_latest_partitions`` (missing
   on 8+) and keeps ``lookback_partitions`` (0: all); selected_partitions keeps
   ``begin <= p <= end`` as text, a missing bound no limit;
4. ``skip_partitions_written_within``: partitions a write (commit, deltacommit or replacecommit
   that is not a clustering) completed within that long before now are left out (missing on 8+,
   so the next clustering looks at them again).

The functions :func:`commits_since` and :func:`writes_since` say which commits' partitions the
inputs must hold; the loader (:mod:`.inputs`) and the planner share them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from maintainer.hudi.instants.instant import (
    Action,
    Instant,
    format_instant_time,
    wall_clock_in_timezone,
)
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.project.durations import format_duration
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.units import count

_MOR_COMMITS = frozenset({Action.DELTA_COMMIT, Action.REPLACE_COMMIT})
_COW_COMMITS = frozenset({Action.COMMIT, Action.REPLACE_COMMIT})
_WRITES = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})


class MissingWrittenPartitions(Exception):
    """The inputs lack the partitions of a commit the rules need (a loader defect)."""

    def __init__(self, instant: str) -> None:
        super().__init__(instant)
        self.instant = instant


@dataclass(frozen=True)
class PartitionChoice:
    """The partitions to cluster, in order; those left for the next clustering; and why."""

    partitions: tuple[str, ...]
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


def commits_since(timeline: Timeline, last: Instant, is_mor: bool) -> list[Instant]:
    """The completed commits of the incremental window after the completed clustering ``last``
    (completion at or after its time; the window's right edge is checked by the planner)."""
    actions = _MOR_COMMITS if is_mor else _COW_COMMITS
    return [
        i
        for i in timeline.completed_commits()
        if i.timestamp != last.timestamp
        and i.completed_action in actions
        and (i.completion_time or i.timestamp) >= last.timestamp
    ]


def recent_cutoff(now: datetime, spec: ClusteringSpec, timezone: str) -> str | None:
    """The instant time from which a write keeps its partitions out (None: no such rule)."""
    within = spec.skip_partitions_written_within
    if within is None or within.total_seconds() <= 0:
        return None
    return format_instant_time(wall_clock_in_timezone(now, timezone) - within)


def writes_since(timeline: Timeline, cutoff: str, is_clustering: Callable[[Instant], bool]) -> list[Instant]:
    """Completed writes (not table services) whose instant time is at or after ``cutoff``."""
    return [
        i
        for i in timeline.completed_commits()
        if i.action in _WRITES and i.timestamp >= cutoff and not is_clustering(i)
    ]


def _in_window(instant: Instant, instant_time: str) -> bool:
    """Hudi's right edge: completed before the new instant (or, with a completion time longer
    than its requested time, requested before it)."""
    completion = instant.completion_time or instant.timestamp
    requested = instant.timestamp
    return completion < instant_time or (len(requested) < len(completion) and requested < instant_time)


def _written(commits: Iterable[Instant], written: Callable[[str], frozenset[str]]) -> set[str]:
    found: set[str] = set()
    for instant in commits:
        found |= written(instant.timestamp)
    return found


@dataclass(frozen=True)
class PartitionContext:
    """What partition selection reads besides the spec."""

    timeline: Timeline
    listed: Sequence[str]
    is_mor: bool
    instant_time: str
    last_completed: Instant | None
    """The last completed clustering on the active timeline (layout 2 only)."""
    last_missing: tuple[str, ...]
    """Its plan's ``missingSchedulePartitions``."""
    written: Callable[[str], frozenset[str]]
    """Commit time -> partitions it wrote; raises :class:`MissingWrittenPartitions`."""
    is_clustering: Callable[[Instant], bool]
    recent_cutoff: str | None


def _incremental(ctx: PartitionContext) -> tuple[list[str], list[str]]:
    if ctx.timeline.layout is not TimelineLayout.V2 or ctx.last_completed is None:
        notes = []
        if ctx.timeline.layout is TimelineLayout.V2:
            notes.append("no completed clustering on the active timeline: every partition is considered")
        return list(ctx.listed), notes
    last = ctx.last_completed
    window = [i for i in commits_since(ctx.timeline, last, ctx.is_mor) if _in_window(i, ctx.instant_time)]
    partitions = _written(window, ctx.written) | set(ctx.last_missing)
    note = (
        f"incremental: {count(len(partitions), 'partition')} written since the last clustering "
        f"{last.timestamp}" + (f" or left by it ({len(ctx.last_missing)})" if ctx.last_missing else "")
    )
    return sorted(partitions), [note]


def _regex(partitions: list[str], pattern: str | None) -> tuple[list[str], list[str]]:
    if not pattern:
        return partitions, []
    compiled = re.compile(pattern)
    kept = [p for p in partitions if compiled.fullmatch(p)]
    left = len(partitions) - len(kept)
    return kept, [f"partition_regex: {count(left, 'partition')} do not match {pattern!r}"] if left else []


def _filter_mode(partitions: list[str], spec: ClusteringSpec) -> tuple[list[str], list[str], list[str]]:
    """(kept in Hudi's order, skipped-from-latest ones, notes)."""
    if spec.partition_filter_mode == "recent_days":
        newest = sorted(partitions, reverse=True)
        skipped = newest[: spec.skip_from_latest_partitions]
        rest = newest[spec.skip_from_latest_partitions :]
        kept = rest[: spec.lookback_partitions] if spec.lookback_partitions > 0 else rest
        return kept, skipped, [f"recent_days: {count(len(kept), 'partition')} of {len(partitions)} kept"]
    if spec.partition_filter_mode == "selected_partitions":
        begin, end = spec.begin_partition, spec.end_partition
        kept = [p for p in partitions if (begin is None or begin <= p) and (end is None or p <= end)]
        return (
            kept,
            [],
            [f"selected_partitions: {count(len(kept), 'partition')} of {len(partitions)} in range"],
        )
    return partitions, [], []


def _recently_written(
    partitions: list[str], ctx: PartitionContext, spec: ClusteringSpec
) -> tuple[list[str], list[str], list[str]]:
    if ctx.recent_cutoff is None or spec.skip_partitions_written_within is None:
        return partitions, [], []
    busy = _written(writes_since(ctx.timeline, ctx.recent_cutoff, ctx.is_clustering), ctx.written)
    kept = [p for p in partitions if p not in busy]
    held = [p for p in partitions if p in busy]
    if not held:
        return kept, [], []
    within = format_duration(spec.skip_partitions_written_within)
    shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
    note = (
        f"skip_partitions_written_within {within}: {count(len(held), 'partition')} written since "
        f"{ctx.recent_cutoff} left out ({shown})"
    )
    return kept, held, [note]


def choose_partitions(ctx: PartitionContext, spec: ClusteringSpec) -> PartitionChoice:
    """The partitions to cluster, those left for the next clustering, and notes on both."""
    incremental = ctx.timeline.layout is TimelineLayout.V2
    missing: list[str] = []
    if spec.partitions:
        listed, notes = (
            list(spec.partitions),
            [f"partitions: {count(len(spec.partitions), 'selected partition')}"],
        )
        missing += list(ctx.last_missing) if incremental else []
    else:
        listed, notes = _incremental(ctx)
        listed, regex_notes = _regex(listed, spec.partition_regex)
        notes += regex_notes
    kept, skipped, mode_notes = _filter_mode(listed, spec)
    kept, held, recent_notes = _recently_written(kept, ctx, spec)
    if incremental:
        missing += skipped + held
    return PartitionChoice(tuple(kept), tuple(sorted(set(missing))), tuple(notes + mode_notes + recent_notes))
