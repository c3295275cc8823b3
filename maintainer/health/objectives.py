"""A table's figures against its objectives (``slo:``) and the health score.

**Health score** (0-100): five parts of 20 points each, one per figure an objective can limit:

* ``pending``: the oldest pending instant's age against ``max_pending_age``;
* ``log_backlog``: the most log files in one file slice against ``max_log_files_per_slice``;
* ``small_files``: the share of small base files against ``max_small_file_share``;
* ``timeline``: active instants against ``max_active_instants``;
* ``clean``: time since the last completed clean against ``max_since_clean`` (a table that was
  never cleaned counts from its oldest active instant).

A part scores its 20 points while the figure is within the limit, then loses them linearly,
reaching 0 at twice the limit: ``points = 20 * clamp(2 - value / limit, 0, 1)``. The limit is
the table's objective where its ``slo`` sets one, else the default (``DEFAULT_OBJECTIVES``);
only declared limits are objectives that make a table overdue. A table that cannot be read
scores 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from maintainer.health.records import (
    LastRun,
    LogBacklog,
    Objective,
    PendingInstant,
    ScorePart,
    SmallFiles,
    TimelineFigures,
)
from maintainer.project.objectives import DEFAULT_OBJECTIVES, ObjectivesSpec

PART_POINTS = 20.0
Unit = Literal["count", "seconds", "share"]


@dataclass(frozen=True, slots=True)
class Figures:
    """What the objectives are checked on (from :mod:`maintainer.health.figures`)."""

    pending: tuple[PendingInstant, ...]
    log_backlog: LogBacklog
    small_files: SmallFiles
    timeline: TimelineFigures
    last_runs: tuple[LastRun, ...]


@dataclass(frozen=True, slots=True)
class Measure:
    name: str
    """The objective's name in ``slo``."""
    part: str
    unit: Unit
    value: Callable[[Figures], float]
    limit: Callable[[ObjectivesSpec], float | None]


def _oldest_pending(figures: Figures) -> float:
    return float(max((p.age_seconds for p in figures.pending), default=0))


def _since_clean(figures: Figures) -> float:
    clean = next((r for r in figures.last_runs if r.service == "clean"), None)
    if clean is not None and clean.age_seconds is not None:
        return float(clean.age_seconds)
    return float(figures.timeline.oldest_active_age_seconds or 0)


def _seconds(value: timedelta | None) -> float | None:
    return value.total_seconds() if value is not None else None


MEASURES: tuple[Measure, ...] = (
    Measure("max_pending_age", "pending", "seconds", _oldest_pending, lambda o: _seconds(o.max_pending_age)),
    Measure(
        "max_log_files_per_slice",
        "log_backlog",
        "count",
        lambda f: float(f.log_backlog.max_log_files_per_slice),
        lambda o: o.max_log_files_per_slice,
    ),
    Measure(
        "max_small_file_share",
        "small_files",
        "share",
        lambda f: f.small_files.share,
        lambda o: o.max_small_file_share,
    ),
    Measure(
        "max_active_instants",
        "timeline",
        "count",
        lambda f: float(f.timeline.active_instants),
        lambda o: o.max_active_instants,
    ),
    Measure("max_since_clean", "clean", "seconds", _since_clean, lambda o: _seconds(o.max_since_clean)),
)


def objectives(figures: Figures, declared: ObjectivesSpec | None) -> tuple[Objective, ...]:
    """The declared objectives, each ok or overdue (none without an ``slo``)."""
    if declared is None:
        return ()
    result = []
    for measure in MEASURES:
        limit = measure.limit(declared)
        if limit is None:
            continue
        value = measure.value(figures)
        result.append(
            Objective(
                name=measure.name,
                limit=float(limit),
                value=value,
                unit=measure.unit,
                state="ok" if value <= limit else "overdue",
            )
        )
    return tuple(result)


def part_points(value: float, limit: float) -> float:
    """20 within the limit, falling linearly to 0 at twice the limit."""
    if limit <= 0:
        return PART_POINTS if value <= 0 else 0.0
    return round(PART_POINTS * min(1.0, max(0.0, 2.0 - value / limit)), 2)


def score_parts(figures: Figures, declared: ObjectivesSpec | None) -> tuple[ScorePart, ...]:
    parts = []
    for measure in MEASURES:
        own = measure.limit(declared) if declared is not None else None
        limit = own if own is not None else measure.limit(DEFAULT_OBJECTIVES)
        assert limit is not None  # every default is set
        value = measure.value(figures)
        parts.append(
            ScorePart(
                name=measure.part,
                points=part_points(value, float(limit)),
                max_points=PART_POINTS,
                value=value,
                limit=float(limit),
                declared=own is not None,
            )
        )
    return tuple(parts)


def score(parts: tuple[ScorePart, ...]) -> float:
    return round(sum(p.points for p in parts), 1)
