"""The savepoint planner: the manifest's ``savepoints`` block is the desired set.

Rules (HUDI.md §5, Hudi's savepoint action):
* a listed instant gets a savepoint if it has none: only at a completed commit of the active
  timeline, and not before the last clean's earliest commit to retain (nor a pending clean's),
  whose older files the cleaner may already have deleted; otherwise it is blocked, with why;
* rolling savepoints: a new one at the latest completed commit once the newest rolling one is
  ``every`` old (or there is none); the newest ``keep`` rolling savepoints stay, older ones go;
* every other savepoint (not listed, not a kept rolling one) is deleted, as is a leftover
  ``savepoint.inflight`` that is not wanted;
* a leftover ``savepoint.inflight`` that is wanted is finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from maintainer.hudi.instants.instant import Action, instant_time_to_epoch_ms
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.savepoint.settings import SavepointsSpec


@dataclass(frozen=True)
class SavepointInputs:
    timeline: Timeline
    last_clean_ectr: str | None = None
    pending_clean_ectrs: tuple[str, ...] = ()
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class SavepointAction:
    instant_time: str
    reason: str


@dataclass(frozen=True)
class SavepointPlanResult:
    create: tuple[SavepointAction, ...] = ()
    delete: tuple[SavepointAction, ...] = ()
    blocked: tuple[SavepointAction, ...] = ()
    kept: tuple[str, ...] = field(default=())

    @property
    def has_changes(self) -> bool:
        return bool(self.create or self.delete)


def _clean_floor(inputs: SavepointInputs) -> str | None:
    floors = [t for t in (inputs.last_clean_ectr, *inputs.pending_clean_ectrs) if t]
    return max(floors) if floors else None


def why_not_savepointable(inputs: SavepointInputs, instant_time: str) -> str | None:
    """Why a savepoint cannot be created at ``instant_time`` (None: it can)."""
    if instant_time not in inputs.timeline.completed_commit_times():
        return f"{instant_time} is not a completed commit of the active timeline (never written, or archived)"
    floor = _clean_floor(inputs)
    if floor is not None and instant_time < floor:
        return (
            f"{instant_time} is older than the clean's earliest commit to retain {floor}: "
            "the cleaner may already have deleted its files"
        )
    return None


def _rolling_due(inputs: SavepointInputs, newest: str | None, every: timedelta, now: datetime) -> bool:
    if newest is None:
        return True
    age_ms = int(now.timestamp() * 1000) - instant_time_to_epoch_ms(newest, inputs.timezone)
    return age_ms >= every.total_seconds() * 1000


def _rolling(
    inputs: SavepointInputs, settings: SavepointsSpec, now: datetime, rolling: list[str], create: set[str]
) -> tuple[list[SavepointAction], list[str]]:
    """(rolling savepoint to create, rolling savepoints kept)."""
    if settings.rolling is None:
        return [], []
    every, keep = settings.rolling.every, settings.rolling.keep
    commits = inputs.timeline.completed_commits()
    latest = commits[-1].timestamp if commits else None
    newest = max(rolling) if rolling else None
    created: list[SavepointAction] = []
    if (
        latest is not None
        and latest not in rolling
        and latest not in create
        and latest not in settings.instants
        and _rolling_due(inputs, newest, every, now)
    ) and why_not_savepointable(inputs, latest) is None:
        since = f"the newest rolling savepoint {newest} is {every} old" if newest else "there is none yet"
        created.append(SavepointAction(latest, f"rolling savepoint at the latest completed commit: {since}"))
    candidates = sorted({*rolling, *(c.instant_time for c in created)}, reverse=True)
    return created, candidates[:keep]


def plan_savepoints(inputs: SavepointInputs, settings: SavepointsSpec, now: datetime) -> SavepointPlanResult:
    timeline = inputs.timeline
    existing = sorted(i.timestamp for i in timeline.savepoints())
    pending = sorted(i.timestamp for i in timeline.of_action(Action.SAVEPOINT) if i.is_pending)
    create: list[SavepointAction] = []
    blocked: list[SavepointAction] = []
    for instant_time in settings.instants:
        if instant_time in existing:
            continue
        why_not = why_not_savepointable(inputs, instant_time)
        if why_not is not None:
            blocked.append(SavepointAction(instant_time, why_not))
        else:
            create.append(SavepointAction(instant_time, "listed in the manifest's savepoints"))
    rolling = [t for t in existing if t not in settings.instants]
    rolled, kept_rolling = _rolling(inputs, settings, now, rolling, {c.instant_time for c in create})
    create += rolled
    wanted = set(settings.instants) | set(kept_rolling)
    delete = [
        SavepointAction(
            t,
            f"beyond the {settings.rolling.keep} newest rolling savepoints"
            if settings.rolling is not None
            else "not in the manifest's savepoints",
        )
        for t in existing
        if t not in wanted
    ]
    delete += [
        SavepointAction(t, "a savepoint.inflight left by an interrupted run, not wanted")
        for t in pending
        if t not in wanted
    ]
    kept = tuple(sorted(t for t in existing if t in wanted))
    return SavepointPlanResult(tuple(create), tuple(delete), tuple(blocked), kept)
