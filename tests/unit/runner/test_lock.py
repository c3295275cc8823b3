from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from maintainer.errors import ApplyError
from maintainer.runner.lock import LOCK_PATH, LockRecord, TableLock, check_free, pid_alive
from maintainer.storage import Storage


class Clock:
    def __init__(self, now: int = 1_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    (tmp_path / ".hoodie").mkdir()
    return Storage(str(tmp_path))


def _record(storage: Storage) -> dict[str, object]:
    data: dict[str, object] = json.loads(storage.read_bytes(LOCK_PATH))
    return data


def test_the_lock_file_names_its_owner_and_goes_away_on_release(storage: Storage) -> None:
    with TableLock(storage, "plan-1", clock=Clock()) as lock:
        record = _record(storage)
        assert record["plan_id"] == "plan-1" and record["token"] == lock.token
        assert record["heartbeat_ms"] == 1_000_000 and record["expiry_ms"] == 600_000
        assert {"host", "pid"} <= set(record)
    assert not storage.exists(LOCK_PATH)


def test_a_second_apply_fails_clearly_while_the_lock_is_live(storage: Storage) -> None:
    clock = Clock()
    with TableLock(storage, "plan-1", clock=clock):
        clock.now += 9 * 60 * 1000
        with pytest.raises(ApplyError, match=r"locked by another apply: .* pid .*plan plan-1") as raised:
            TableLock(storage, "plan-2", clock=clock).acquire()
        assert raised.value.hint is not None and "wait" in raised.value.hint
        assert _record(storage)["plan_id"] == "plan-1"


def test_a_stale_lock_is_broken_with_a_warning(storage: Storage, capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    dead = TableLock(storage, "plan-dead", clock=clock)
    storage.write_if_absent(LOCK_PATH, dead._record().encode())  # its owner died: no release
    clock.now += 10 * 60 * 1000 + 1
    with TableLock(storage, "plan-2", clock=clock):
        assert _record(storage)["plan_id"] == "plan-2"
    assert "breaking the stale lock" in capsys.readouterr().err


def test_an_unreadable_lock_file_counts_as_stale(storage: Storage) -> None:
    storage.write_if_absent(LOCK_PATH, b"{not json")
    with TableLock(storage, "plan-2", clock=Clock()):
        assert _record(storage)["plan_id"] == "plan-2"


def test_the_heartbeat_keeps_a_long_apply_alive(storage: Storage) -> None:
    clock = Clock()
    with TableLock(storage, "plan-1", clock=clock, heartbeat_s=0.01):
        clock.now += 9 * 60 * 1000
        deadline = time.monotonic() + 5
        while _record(storage)["heartbeat_ms"] != clock.now and time.monotonic() < deadline:
            time.sleep(0.01)
        clock.now += 9 * 60 * 1000  # 18 min after it was taken, 9 after the last beat: still live
        with pytest.raises(ApplyError, match="locked by another apply"):
            TableLock(storage, "plan-2", clock=clock).acquire()


def test_release_never_removes_a_lock_someone_else_took_over(storage: Storage) -> None:
    clock = Clock()
    first = TableLock(storage, "plan-1", clock=clock, heartbeat_s=3600)
    first.acquire()
    clock.now += 11 * 60 * 1000  # first looks dead; a second apply breaks its lock
    second = TableLock(storage, "plan-2", clock=clock, heartbeat_s=3600)
    second.acquire()
    first.heartbeat()  # no longer ours: must not overwrite
    first.release()
    assert _record(storage)["plan_id"] == "plan-2"
    second.release()
    assert not storage.exists(LOCK_PATH)


def test_lock_records_round_trip_and_reject_garbage() -> None:
    record = LockRecord("h", 7, "p", "t", 5, 10)
    assert LockRecord.decode(record.encode()) == record
    assert LockRecord.decode(b'{"host": "h"}') is None
    assert record.is_stale(16) and not record.is_stale(15)


class ObjectStore(Storage):
    """A local directory that behaves as an object store (no exclusive create), where another
    apply may overwrite the lock right after this one wrote it."""

    racing_token: str | None = None

    @property
    def is_local(self) -> bool:
        return False

    def write_bytes(self, path: str, data: bytes) -> None:
        super().write_bytes(path, data)
        if path == LOCK_PATH and self.racing_token is not None:
            other = {**json.loads(data), "token": self.racing_token, "plan_id": "other-plan", "pid": 4242}
            super().write_bytes(path, json.dumps(other).encode())
            self.racing_token = None


def test_on_an_object_store_the_lock_is_read_back_before_the_apply_goes_on(tmp_path: Path) -> None:
    (tmp_path / ".hoodie").mkdir()
    store = ObjectStore(str(tmp_path))
    with TableLock(store, "plan-1", clock=Clock(), settle_s=0) as lock:
        assert lock.holds() and _record(store)["token"] == lock.token
    assert not store.exists(LOCK_PATH)

    store.racing_token = "someone-else"
    with pytest.raises(ApplyError, match=r"another apply took the table lock at the same moment.*other-pla"):
        TableLock(store, "plan-1", clock=Clock(), settle_s=0).acquire()
    assert _record(store)["token"] == "someone-else", "the winner's lock is left alone"


def _dead_pid() -> int:
    """The pid of a process that ran on this host and exited (reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _write_owner(storage: Storage, host: str, pid: int, heartbeat_ms: int) -> None:
    record = LockRecord(host, pid, "plan-killed", "t0", heartbeat_ms, 600_000)
    storage.write_if_absent(LOCK_PATH, record.encode())


def test_a_fresh_lock_of_a_dead_process_on_this_host_is_taken_over_naming_it(
    storage: Storage, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = Clock()
    pid = _dead_pid()
    _write_owner(storage, socket.gethostname(), pid, clock.now)  # heartbeat 0 s ago: not stale
    check_free(storage, clock)  # the pre-check lets it through
    with TableLock(storage, "plan-2", clock=clock):
        assert _record(storage)["plan_id"] == "plan-2"
    err = capsys.readouterr().err
    assert "taking over the lock of" in err and f"pid {pid}" in err and "plan-killed" in err


def test_a_fresh_lock_of_another_host_or_a_live_process_is_not_taken_over(storage: Storage) -> None:
    clock = Clock()
    _write_owner(storage, "another-host", _dead_pid(), clock.now)
    with pytest.raises(ApplyError, match="locked by another apply: another-host pid"):
        check_free(storage, clock)
    with pytest.raises(ApplyError, match="locked by another apply: another-host pid"):
        TableLock(storage, "plan-2", clock=clock).acquire()
    storage.delete(LOCK_PATH)
    _write_owner(storage, socket.gethostname(), os.getppid(), clock.now)
    with pytest.raises(ApplyError, match=f"pid {os.getppid()} "):
        check_free(storage, clock)


def test_pid_alive_tells_a_running_process_from_a_gone_one() -> None:
    assert pid_alive(os.getpid()) and not pid_alive(_dead_pid()) and not pid_alive(0)


def test_check_free_passes_an_unlocked_or_stale_table(storage: Storage) -> None:
    clock = Clock()
    check_free(storage, clock)
    _write_owner(storage, "another-host", 1, clock.now)
    clock.now += 10 * 60 * 1000 + 1
    check_free(storage, clock)
