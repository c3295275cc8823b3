"""The health score's parts and the objectives of a table's slo."""

from __future__ import annotations

from datetime import timedelta

import pytest

from maintainer.health.objectives import Figures, objectives, part_points, score, score_parts
from maintainer.health.records import LastRun, LogBacklog, PendingInstant, SmallFiles, TimelineFigures
from maintainer.project.objectives import ObjectivesSpec


def figures(
    *,
    pending_age: int | None = None,
    max_logs: int = 0,
    share: float = 0.0,
    instants: int = 5,
    clean_age: int | None = 60,
) -> Figures:
    pending = (
        ()
        if pending_age is None
        else (
            PendingInstant(
                instant="20260101000000000",
                action="compaction",
                state="REQUESTED",
                age_seconds=pending_age,
                stuck=False,
            ),
        )
    )
    logs = LogBacklog(
        slices=4,
        slices_with_logs=1,
        log_files=max_logs,
        log_bytes=100,
        max_log_files_per_slice=max_logs,
        p50_log_files_per_slice=0.0,
        max_log_bytes_per_slice=100,
        p50_log_bytes_per_slice=0.0,
        slices_over_limit=0,
        read_amplification=None,
    )
    small = SmallFiles(
        limit_bytes=100, base_files=10, small_files=int(share * 10), small_bytes=10, share=share
    )
    timeline = TimelineFigures(
        active_instants=instants,
        keep_max_commits=30,
        oldest_active_instant="20260101000000000",
        oldest_active_age_seconds=999,
    )
    runs = (
        LastRun(service="clean", instant="20260101000000000" if clean_age else None, age_seconds=clean_age),
    )
    return Figures(pending=pending, log_backlog=logs, small_files=small, timeline=timeline, last_runs=runs)


@pytest.mark.parametrize(
    ("value", "limit", "points"),
    [(0, 10, 20.0), (10, 10, 20.0), (15, 10, 10.0), (20, 10, 0.0), (50, 10, 0.0), (0, 0, 20.0), (1, 0, 0.0)],
)
def test_a_part_keeps_its_points_within_the_limit_and_loses_them_linearly_to_twice_it(
    value: float, limit: float, points: float
) -> None:
    assert part_points(value, limit) == points


def test_a_healthy_table_scores_100_and_has_no_objectives_without_an_slo() -> None:
    parts = score_parts(figures(), None)
    assert score(parts) == 100.0
    assert [p.name for p in parts] == ["pending", "log_backlog", "small_files", "timeline", "clean"]
    assert not any(p.declared for p in parts)
    assert objectives(figures(), None) == ()


def test_the_defaults_weigh_a_table_without_making_it_overdue() -> None:
    # 15 log files in one slice against the default 10: half of the part's points
    parts = {p.name: p for p in score_parts(figures(max_logs=15), None)}
    assert parts["log_backlog"].points == 10.0
    assert parts["log_backlog"].limit == 10
    assert objectives(figures(max_logs=15), None) == ()


def test_each_declared_objective_is_ok_or_overdue() -> None:
    slo = ObjectivesSpec(
        max_log_files_per_slice=3,
        max_pending_age=timedelta(hours=1),
        max_small_file_share=0.2,
        max_active_instants=4,
        max_since_clean=timedelta(days=1),
    )
    bad = figures(pending_age=7200, max_logs=4, share=0.5, instants=5, clean_age=3 * 86400)
    states = {o.name: o.state for o in objectives(bad, slo)}
    assert states == dict.fromkeys(
        [
            "max_pending_age",
            "max_log_files_per_slice",
            "max_small_file_share",
            "max_active_instants",
            "max_since_clean",
        ],
        "overdue",
    )
    good = figures(pending_age=60, max_logs=3, share=0.2, instants=4, clean_age=3600)
    assert {o.state for o in objectives(good, slo)} == {"ok"}
    parts = score_parts(bad, slo)
    assert all(p.declared for p in parts)


def test_only_the_declared_limits_are_objectives() -> None:
    slo = ObjectivesSpec(max_active_instants=4)
    result = objectives(figures(instants=9), slo)
    assert [(o.name, o.state, o.value, o.limit) for o in result] == [
        ("max_active_instants", "overdue", 9.0, 4.0)
    ]


def test_a_table_never_cleaned_counts_from_its_oldest_instant() -> None:
    parts = {p.name: p for p in score_parts(figures(clean_age=None), None)}
    assert parts["clean"].value == 999
