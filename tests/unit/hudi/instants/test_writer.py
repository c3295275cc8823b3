"""The timeline writer: Hudi's file names per layout, and its refusals."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.errors import TimelineWriteError
from maintainer.hudi.config.properties import table_config_from_properties
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.snapshot import load_timeline
from maintainer.storage import Storage

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


def writer(tmp_path: Path, version: int = 6, now: datetime = NOW) -> TimelineWriter:
    raw = {
        "hoodie.table.name": "t",
        "hoodie.table.version": str(version),
        "hoodie.table.timeline.timezone": "UTC",
    }
    config = table_config_from_properties(raw)
    storage = Storage(str(tmp_path))
    storage.make_dirs(config.timeline_dir)
    return TimelineWriter(storage, config, clock=lambda: now)


def names(w: TimelineWriter) -> list[str]:
    return sorted(i.name for i in w.storage.list_dir(w.config.timeline_dir) if not i.is_dir)


def test_layout_1_writes_requested_inflight_and_completed_files(tmp_path: Path) -> None:
    w = writer(tmp_path)
    requested = w.create_requested(Action.COMMIT)
    completed = w.complete(w.transition_to_inflight(requested), b"{}")
    ts = requested.timestamp
    assert ts == "20250601120000000"
    assert names(w) == [f"{ts}.commit", f"{ts}.commit.requested", f"{ts}.inflight"]
    assert completed.state is State.COMPLETED and completed.completion_time is None


def test_layout_2_completes_with_a_later_completion_time(tmp_path: Path) -> None:
    w = writer(tmp_path, version=8)
    requested = w.create_requested(Action.CLEAN, b"plan")
    completed = w.complete(w.transition_to_inflight(requested), b"meta")
    assert completed.completion_time is not None and completed.completion_time > requested.timestamp
    assert f"{requested.timestamp}_{completed.completion_time}.clean" in names(w)


def test_compaction_completes_as_a_commit(tmp_path: Path) -> None:
    w = writer(tmp_path)
    requested = w.create_requested(Action.COMPACTION, b"plan")
    w.complete(w.transition_to_inflight(requested), b"{}")
    assert f"{requested.timestamp}.commit" in names(w)
    timeline = load_timeline(w.storage, w.config)
    assert timeline.instants[0].action is Action.COMPACTION and timeline.instants[0].is_completed


def test_new_times_are_strictly_greater_than_everything_in_the_timeline(tmp_path: Path) -> None:
    w = writer(tmp_path, version=8)
    first = w.complete(w.transition_to_inflight(w.create_requested(Action.COMMIT)), b"")
    second = w.create_requested(Action.DELTA_COMMIT)
    assert first.completion_time is not None
    assert second.timestamp > first.completion_time > first.timestamp


def test_clock_behind_the_timeline_still_issues_a_greater_time(tmp_path: Path) -> None:
    w = writer(tmp_path)
    w.storage.write_bytes(".hoodie/20300101000000000.commit", b"{}")
    assert w.create_requested(Action.CLEAN).timestamp == "20300101000000001"


def test_refuses_an_instant_file_that_already_exists(tmp_path: Path) -> None:
    w = writer(tmp_path)
    requested = w.create_requested(Action.COMMIT)
    w.transition_to_inflight(requested)
    with pytest.raises(TimelineWriteError, match="already exists"):
        w.transition_to_inflight(requested)


def test_refuses_a_time_not_greater_than_the_latest(tmp_path: Path) -> None:
    w = writer(tmp_path)
    latest = w.create_requested(Action.COMMIT).timestamp
    with pytest.raises(TimelineWriteError, match="not greater than the latest"):
        w.create_requested(Action.CLEAN, instant_time=latest)


def test_refuses_completing_an_instant_that_is_not_inflight(tmp_path: Path) -> None:
    w = writer(tmp_path)
    requested = w.create_requested(Action.COMMIT)
    with pytest.raises(TimelineWriteError, match="illegal transition"):
        w.complete(requested, b"")


def test_refuses_a_transition_whose_previous_state_file_is_missing(tmp_path: Path) -> None:
    w = writer(tmp_path)
    requested = w.create_requested(Action.COMMIT)
    w.storage.delete(f".hoodie/{requested.timestamp}.commit.requested")
    with pytest.raises(TimelineWriteError, match="has no REQUESTED file"):
        w.transition_to_inflight(requested)


def test_savepoints_start_inflight_at_a_completed_commit(tmp_path: Path) -> None:
    w = writer(tmp_path)
    commit = w.complete(w.transition_to_inflight(w.create_requested(Action.COMMIT)), b"{}")
    with pytest.raises(TimelineWriteError, match="no requested state"):
        w.create_requested(Action.SAVEPOINT)
    savepoint = w.create_inflight(Action.SAVEPOINT, instant_time=commit.timestamp)
    w.complete(savepoint, b"meta")
    assert f"{commit.timestamp}.savepoint" in names(w)
    with pytest.raises(TimelineWriteError, match="not a completed commit"):
        w.create_inflight(Action.SAVEPOINT, instant_time="20990101000000000")


def test_delete_instant_removes_requested_then_inflight_then_completed(tmp_path: Path) -> None:
    w = writer(tmp_path)
    completed = w.complete(w.transition_to_inflight(w.create_requested(Action.COMMIT)), b"{}")
    deleted = w.delete_instant(completed)
    ts = completed.timestamp
    assert deleted == [f"{ts}.commit.requested", f"{ts}.inflight", f"{ts}.commit"]
    assert names(w) == []


def test_revert_inflight_to_requested(tmp_path: Path) -> None:
    w = writer(tmp_path)
    inflight = w.transition_to_inflight(w.create_requested(Action.COMPACTION, b"plan"))
    assert w.revert_inflight_to_requested(inflight).state is State.REQUESTED
    assert names(w) == [f"{inflight.timestamp}.compaction.requested"]
