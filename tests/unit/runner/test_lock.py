from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from maintainer.errors import ApplyError
from maintainer.runner.lock import LOCK_PATH, LockRecord, TableLock
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
