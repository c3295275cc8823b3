"""Heartbeats of pending instants (``HoodieHeartbeatClient``): the empty file
``.hoodie/.heartbeat/<instant>`` whose modification time is the last beat."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from maintainer.errors import ApplyError
from maintainer.hudi.config.properties import table_config_from_properties
from maintainer.hudi.instants.heartbeat import HEARTBEAT_DIR, InstantHeartbeat, heartbeat_path
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.storage import Storage, clear_write_fence, set_write_fence

FAST = 0.02


def writer(tmp_path: Path, version: int = 8) -> TimelineWriter:
    raw = {
        "hoodie.table.name": "t",
        "hoodie.table.version": str(version),
        "hoodie.table.timeline.timezone": "UTC",
    }
    config = table_config_from_properties(raw)
    storage = Storage(str(tmp_path))
    storage.make_dirs(config.timeline_dir)
    return TimelineWriter(storage, config, heartbeat_interval_s=FAST)


def mtime_ns(path: Path) -> int:
    return path.stat().st_mtime_ns


def wait_for_beats(beat: InstantHeartbeat, count: int) -> None:
    deadline = time.monotonic() + 5
    while beat.beats < count and time.monotonic() < deadline:
        time.sleep(FAST / 2)
    assert beat.beats >= count


def test_the_heartbeat_is_an_empty_file_rewritten_every_interval(tmp_path: Path) -> None:
    """HoodieHeartbeatClient.start/updateHeartbeat: a first beat before the work, then one per
    hoodie.client.heartbeat.interval_in_ms, each recreating the empty file (its modification time
    is the heartbeat); stop ends the beats and leaves the file."""
    storage = Storage(str(tmp_path))
    beat = InstantHeartbeat(storage, "20260101000000000", FAST)
    beat.start()
    path = tmp_path / HEARTBEAT_DIR / "20260101000000000"
    assert path.read_bytes() == b""
    first = mtime_ns(path)
    wait_for_beats(beat, 3)
    beat.stop()
    assert mtime_ns(path) > first
    stopped_at, count = mtime_ns(path), beat.beats
    time.sleep(FAST * 5)
    assert (mtime_ns(path), beat.beats) == (stopped_at, count)  # left to expire
    beat.delete()
    assert not path.exists()


def test_a_pending_instant_beats_until_it_completes(tmp_path: Path) -> None:
    """BaseHoodieWriteClient: the heartbeat of an instant runs while it is pending and
    HeartbeatUtils.deleteHeartbeatFile removes it once the instant completes."""
    w = writer(tmp_path)
    requested = w.create_requested(Action.CLEAN, b"plan")
    path = tmp_path / heartbeat_path(requested.timestamp)
    with w.heartbeat(requested.timestamp) as beat:
        inflight = w.transition_to_inflight(requested)
        wait_for_beats(beat, 2)
        assert path.exists() and beat.beating
        w.complete(inflight, b"meta")
        assert not path.exists() and not beat.beating
        time.sleep(FAST * 3)
        assert not path.exists()  # no beat recreates it after the completion
    assert not (tmp_path / HEARTBEAT_DIR).exists() or not any((tmp_path / HEARTBEAT_DIR).iterdir())


def test_a_failure_while_pending_leaves_a_heartbeat_that_expires(tmp_path: Path) -> None:
    """As a crashed Hudi writer's: the file stays, no longer refreshed, so a LAZY cleaner sees
    it expire (HoodieHeartbeatClient.isHeartbeatExpired); removing the instant deletes it."""
    w = writer(tmp_path)
    requested = w.create_requested(Action.CLEAN, b"plan")
    path = tmp_path / heartbeat_path(requested.timestamp)
    with pytest.raises(ApplyError), w.heartbeat(requested.timestamp):
        w.transition_to_inflight(requested)
        raise ApplyError("the work failed")
    left = mtime_ns(path)
    time.sleep(FAST * 5)
    assert mtime_ns(path) == left
    w.delete_instant(requested)
    assert not path.exists()


def test_beats_stop_once_writes_to_the_table_are_fenced_off(tmp_path: Path) -> None:
    """A lost table lock fences writes off: the heartbeat stops and expires."""
    storage = Storage(str(tmp_path))
    beat = InstantHeartbeat(storage, "20260101000000000", FAST)
    beat.start()

    def fence() -> None:
        raise ApplyError("the table lock was lost")

    set_write_fence(storage.uri(""), fence)
    try:
        count = beat.beats
        time.sleep(FAST * 5)
        assert not beat.beating
        assert beat.beats <= count + 1
    finally:
        clear_write_fence(storage.uri(""), fence)
        beat.stop()
