"""Savepoint planner rules on synthetic timelines."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.savepoint.planner import (
    SavepointInputs,
    plan_savepoints,
)
from maintainer.services.savepoint.settings import RollingSavepoints, SavepointsSpec

NOW = datetime(2026, 1, 10, 0, 0, 0, tzinfo=timezone.utc)


def day(index: int) -> str:
    return f"202601{index:02d}000000000"


def timeline(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 1)


def commits(*days: int) -> list[str]:
    return [
        name
        for d in days
        for name in (f"{day(d)}.commit.requested", f"{day(d)}.inflight", f"{day(d)}.commit")
    ]


def savepoint(d: int) -> list[str]:
    return [f"{day(d)}.savepoint.inflight", f"{day(d)}.savepoint"]


def plan(tl: Timeline, settings: SavepointsSpec, **kwargs: object) -> tuple[list[str], list[str], list[str]]:
    result = plan_savepoints(SavepointInputs(tl, **kwargs), settings, NOW)  # type: ignore[arg-type]
    return (
        [a.instant_time for a in result.create],
        [a.instant_time for a in result.delete],
        [a.instant_time for a in result.blocked],
    )


def test_listed_instants_at_completed_commits_are_created_others_blocked_with_why() -> None:
    tl = timeline(*commits(1, 2, 3), f"{day(4)}.commit.requested", f"{day(4)}.inflight")
    result = plan_savepoints(SavepointInputs(tl), SavepointsSpec(instants=(day(2), day(4), day(9))), NOW)
    assert [a.instant_time for a in result.create] == [day(2)]
    assert [(a.instant_time, "not a completed commit" in a.reason) for a in result.blocked] == [
        (day(4), True),
        (day(9), True),
    ]


def test_not_before_the_last_clean_or_a_pending_clean_earliest_commit_to_retain() -> None:
    tl = timeline(*commits(1, 2, 3, 4))
    settings = SavepointsSpec(instants=(day(1), day(2), day(3)))
    assert plan(tl, settings, last_clean_ectr=day(2)) == ([day(2), day(3)], [], [day(1)])
    assert plan(tl, settings, last_clean_ectr=day(2), pending_clean_ectrs=(day(3),)) == (
        [day(3)],
        [],
        [day(1), day(2)],
    )


def test_existing_listed_savepoints_stay_and_unlisted_ones_are_deleted() -> None:
    tl = timeline(*commits(1, 2, 3), *savepoint(1), *savepoint(2))
    result = plan_savepoints(SavepointInputs(tl), SavepointsSpec(instants=(day(1),)), NOW)
    assert not result.create and result.kept == (day(1),)
    assert [(a.instant_time, a.reason) for a in result.delete] == [
        (day(2), "not in the manifest's savepoints")
    ]


def test_rolling_creates_one_at_the_latest_commit_when_due_and_keeps_the_newest() -> None:
    tl = timeline(*commits(1, 2, 3, 8), *savepoint(1), *savepoint(2), *savepoint(3))
    rolling = SavepointsSpec(rolling=RollingSavepoints(every=timedelta(days=1), keep=2))
    assert plan(tl, rolling) == ([day(8)], [day(1), day(2)], [])


def test_rolling_is_not_due_before_every_has_passed() -> None:
    tl = timeline(*commits(1, 9), *savepoint(9))
    rolling = SavepointsSpec(rolling=RollingSavepoints(every=timedelta(days=2), keep=3))
    assert plan(tl, rolling) == ([], [], [])


def test_rolling_starts_with_a_first_savepoint_and_never_deletes_listed_ones() -> None:
    tl = timeline(*commits(1, 2), *savepoint(1))
    settings = SavepointsSpec(instants=(day(1),), rolling=RollingSavepoints(every=timedelta(days=1), keep=1))
    assert plan(tl, settings) == ([day(2)], [], [])


def test_rolling_does_not_duplicate_a_listed_latest_commit() -> None:
    tl = timeline(*commits(1, 2))
    settings = SavepointsSpec(instants=(day(2),), rolling=RollingSavepoints(every=timedelta(days=1)))
    assert plan(tl, settings) == ([day(2)], [], [])


def test_a_leftover_inflight_savepoint_is_finished_if_wanted_else_removed() -> None:
    tl = timeline(*commits(1, 2), f"{day(1)}.savepoint.inflight", f"{day(2)}.savepoint.inflight")
    result = plan_savepoints(SavepointInputs(tl), SavepointsSpec(instants=(day(1),)), NOW)
    assert [a.instant_time for a in result.create] == [day(1)]
    assert [(a.instant_time, "interrupted" in a.reason) for a in result.delete] == [(day(2), True)]
