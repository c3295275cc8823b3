"""The table lock (Hudi's storage-based lock) on local disk: acquire, refuse naming the holder,
take over what no longer binds, renew, lose it (and stop writing), release as Hudi does; two
processes racing; a killed holder; instant times generated under the lock."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import NodeStatus
from maintainer.clock import utc_now
from maintainer.errors import ApplyError, StorageUnavailableError
from maintainer.executors.faults import Stopped, clear_stop, request_stop
from maintainer.hudi.lock import LockTiming, StorageLockData
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.lock import (
    LOCK_PATH,
    OLD_LOCK_PATH,
    LockRecord,
    Owner,
    TableLock,
    check_free,
    pid_alive,
    process_scope,
    read_lock,
)
from maintainer.services.base import NodeContext, NodeOutcome
from maintainer.storage import Storage, conditional_store
from maintainer.storage.conditional import ConditionalStore, Versioned
from tests.unit.runner.test_apply import graph_of, saved_plan, spec

SHORT = LockTiming(validity_ms=1000, renew_interval_ms=100)
HUDI_OWNER = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"


class Clock:
    """Epoch milliseconds that move only when told."""

    def __init__(self, now: int = 1_700_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


class Monotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    (tmp_path / ".hoodie").mkdir()
    return Storage(str(tmp_path))


def lock_json(storage: Storage) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(storage.read_bytes(LOCK_PATH))
    return data


def put_lock(storage: Storage, data: StorageLockData) -> None:
    """Another writer's lock object (written as Hudi writes it)."""
    store = conditional_store(storage)
    found = store.read_versioned(LOCK_PATH)
    if found is None:
        store.create_if_absent(LOCK_PATH, data.encode())
    else:
        store.replace_if_version(LOCK_PATH, data.encode(), found.version)


# -- acquire and release -------------------------------------------------------------------------


def test_the_lock_object_is_hudis_and_release_marks_it_expired(storage: Storage) -> None:
    clock = Clock()
    with TableLock(storage, "plan-0123456789abcdef", clock=clock) as lock:
        raw = storage.read_bytes(LOCK_PATH)
        assert raw == StorageLockData(False, clock.now + 300_000, lock.owner).encode()
        assert list(json.loads(raw)) == ["expired", "validUntil", "owner"]
        owner = Owner.parse(lock.owner)
        assert owner is not None
        assert (owner.host, owner.pid, owner.plan) == (socket.gethostname(), os.getpid(), "plan-0123456")
        assert lock.holds()
    # Hudi's unlock: the object stays, expired, validUntil unchanged
    assert lock_json(storage) == {"expired": True, "validUntil": clock.now + 300_000, "owner": lock.owner}
    assert not lock.holds()
    check_free(storage, clock)


def test_a_live_lock_is_refused_naming_its_owner_and_when_it_expires(storage: Storage) -> None:
    clock = Clock()
    with TableLock(storage, "plan-1", clock=clock) as first:
        clock.now += 60_000
        attempts: list[Callable[[], None]] = [
            TableLock(storage, "plan-2", clock=clock).acquire,
            lambda: check_free(storage, clock),
        ]
        for attempt in attempts:
            with pytest.raises(ApplyError) as refused:
                attempt()
            message = str(refused.value)
            holder = f"maintainer on {socket.gethostname()} pid {os.getpid()}"
            assert f"locked by another apply or writer: {holder}" in message
            assert (
                "(plan plan-1)" in message
                and "valid until 2023-11-14 22:18:20 UTC (240 s from now)" in message
            )
            assert refused.value.hint is not None and "wait" in refused.value.hint
        assert lock_json(storage)["owner"] == first.owner


def test_a_hudi_writers_lock_is_waited_for_then_refused_naming_its_uuid(storage: Storage) -> None:
    clock, monotonic = Clock(), Monotonic()
    put_lock(storage, StorageLockData(False, clock.now + 600_000, HUDI_OWNER))
    naps: list[float] = []

    def sleep(seconds: float) -> None:
        naps.append(seconds)
        monotonic.now += seconds

    check_free(storage, clock)  # a writer's lock is waited for when the node runs, not refused up front
    lock = TableLock(storage, "plan-2", clock=clock, monotonic=monotonic, sleep=sleep, wait_for_writer_s=5)
    with pytest.raises(ApplyError, match=f"another writer, owner '{HUDI_OWNER}'"):
        lock.acquire()
    assert naps == [1.0] * 5
    assert lock_json(storage)["owner"] == HUDI_OWNER


def test_the_lock_is_taken_once_the_hudi_writer_releases_it(storage: Storage) -> None:
    clock = Clock()
    put_lock(storage, StorageLockData(False, clock.now + 10_000, HUDI_OWNER))

    def writer_commits(seconds: float) -> None:  # the writer finishes its commit and unlocks
        put_lock(storage, StorageLockData(True, clock.now + 10_000, HUDI_OWNER))

    with TableLock(storage, "plan-2", clock=clock, sleep=writer_commits) as lock:
        assert lock_json(storage)["owner"] == lock.owner


def test_expiry_at_the_boundary_validuntil_plus_500_ms(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    put_lock(storage, StorageLockData(False, clock.now - 500, HUDI_OWNER))  # binds through +500
    with pytest.raises(ApplyError, match="locked by another apply or writer"):
        TableLock(storage, "plan-2", clock=clock, wait_for_writer_s=0).acquire()
    clock.now += 1  # now validUntil + 501: a dangling lock, its owner stopped renewing
    check_free(storage, clock)
    with TableLock(storage, "plan-2", clock=clock) as lock:
        assert lock_json(storage) == {
            "expired": False,
            "validUntil": clock.now + 300_000,
            "owner": lock.owner,
        }
    err = caplog.text
    assert (
        f"taking over the lock of another writer, owner '{HUDI_OWNER}'" in err and "stopped renewing" in err
    )
    (record,) = [r for r in caplog.records if "taking over" in r.getMessage()]  # a record with its fields
    assert (record.name, record.levelname) == ("maintainer.runner.lock", "WARNING")
    got = [getattr(record, name) for name in ("plan_id", "event", "data")]
    assert got == ["plan-2", "table_lock", {"path": storage.base_uri}]


def test_a_released_lock_is_taken_without_a_word(storage: Storage, caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    put_lock(storage, StorageLockData(True, clock.now + 100_000, HUDI_OWNER))
    with TableLock(storage, "plan-2", clock=clock) as lock:
        assert lock_json(storage)["owner"] == lock.owner
    assert "taking over" not in caplog.text


def test_an_unreadable_lock_object_is_refused(storage: Storage) -> None:
    put_lock(storage, StorageLockData(False, 0, "x"))
    (Path(storage.full_path(LOCK_PATH))).write_bytes(b"{not json")
    with pytest.raises(ApplyError, match="cannot be read as Hudi's lock"):
        TableLock(storage, "plan-2").acquire()
    with pytest.raises(ApplyError, match="cannot be read as Hudi's lock"):
        check_free(storage)


def test_the_old_maintainer_lock_is_ignored(storage: Storage) -> None:
    old = {"host": "h", "pid": 1, "plan_id": "p", "token": "t", "heartbeat_ms": time.time_ns() // 10**6}
    storage.write_bytes(OLD_LOCK_PATH, json.dumps({**old, "expiry_ms": 600_000}).encode())
    check_free(storage)
    with TableLock(storage, "plan-2"):
        pass


# -- renewal and losing the lock -------------------------------------------------------------------


def test_renewal_extends_the_validity_conditionally(storage: Storage) -> None:
    clock, monotonic = Clock(), Monotonic()
    lock = TableLock(storage, "plan-1", clock=clock, monotonic=monotonic, timing=LockTiming(10_000, 1_000))
    lock.acquire()
    lock._stop.set()  # the renewal thread stops: renew by hand
    first = lock_json(storage)["validUntil"]
    clock.now += 5_000
    monotonic.now += 5
    assert lock.renew()
    assert lock_json(storage) == {"expired": False, "validUntil": first + 5_000, "owner": lock.owner}
    monotonic.now += 8.5  # 8.5 s after the renewal began: 9 s (validity - one interval) not reached
    lock.check()
    lock.release()
    assert lock_json(storage)["expired"] is True


def test_a_renewal_that_loses_the_race_stops_and_the_writes_with_it(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    lock = TableLock(storage, "plan-1", clock=clock, timing=LockTiming(3_600_000, 360_000))
    lock.acquire()
    storage.write_bytes(".hoodie/before.txt", b"fine")  # the fence lets a holder write
    put_lock(storage, StorageLockData(False, clock.now + 60_000, HUDI_OWNER))  # taken over
    assert not lock.renew()
    assert lock.lost is not None and "taken over" in lock.lost and not lock.holds()
    with pytest.raises(ApplyError, match=r"lost the table lock \(another writer changed"):
        Storage(storage.base_uri).write_bytes(".hoodie/after.txt", b"too late")  # any Storage, same table
    with pytest.raises(ApplyError, match="lost the table lock"):
        Storage(storage.base_uri).delete(".hoodie/before.txt")
    assert not Path(storage.full_path(".hoodie/after.txt")).exists()
    lock.release()
    assert lock_json(storage)["owner"] == HUDI_OWNER, "the new holder's lock is left alone"
    storage.write_bytes(".hoodie/after.txt", b"released: no fence")
    assert "lost the table lock" in caplog.text


def test_a_stop_asked_for_stops_the_next_write_and_the_lock_is_still_released(storage: Storage) -> None:
    lock = TableLock(storage, "plan-1")
    lock.acquire()
    storage.write_bytes(".hoodie/before.txt", b"fine")
    request_stop()  # a second Ctrl-C
    try:
        with pytest.raises(Stopped, match="stopped before the next write into the table, as asked"):
            Storage(storage.base_uri).write_bytes(".hoodie/after.txt", b"not now")
        with pytest.raises(Stopped):
            Storage(storage.base_uri).delete(".hoodie/before.txt")
        lock.release()
    finally:
        clear_stop()
    assert not Path(storage.full_path(".hoodie/after.txt")).exists()
    assert Path(storage.full_path(".hoodie/before.txt")).exists()
    assert lock_json(storage)["expired"] is True


def test_a_lease_that_runs_out_unrenewed_stops_the_writes(storage: Storage) -> None:
    monotonic = Monotonic()
    lock = TableLock(storage, "plan-1", monotonic=monotonic, timing=LockTiming(10_000, 1_000))
    lock.acquire()
    lock._stop.set()
    monotonic.now += 8.9
    storage.write_bytes(".hoodie/x", b"in time")
    monotonic.now += 0.2  # 9.1 s: less than one renewal interval of the validity left
    with pytest.raises(ApplyError, match="not renewed in time"):
        storage.write_bytes(".hoodie/y", b"late")
    assert not lock.renew()
    lock.release()
    assert lock_json(storage)["expired"] is False, "a lost lock is not written any more"


def test_the_renewal_thread_keeps_the_lock_valid(storage: Storage) -> None:
    with TableLock(storage, "plan-1", timing=SHORT) as lock:
        first = lock_json(storage)["validUntil"]
        deadline = time.monotonic() + 2
        while lock_json(storage)["validUntil"] == first and time.monotonic() < deadline:
            time.sleep(0.02)
        assert lock_json(storage)["validUntil"] > first
        time.sleep(0.3)
        lock.check()
        assert lock.holds()


class Flaky(ConditionalStore):
    """A local store whose first calls of one operation fail transiently (the last after
    doing the write: its answer was lost)."""

    def __init__(self, inner: ConditionalStore, operation: str, failures: int, after: bool = False) -> None:
        self.inner, self.operation, self.failures, self.after = inner, operation, failures, after
        self.needs_verification = False

    def uri(self, path: str) -> str:
        return self.inner.uri(path)

    def _maybe_fail(self, operation: str, call: Any) -> Any:
        if operation == self.operation and self.failures > 0:
            self.failures -= 1
            if self.after:
                call()
            raise StorageUnavailableError("503 SlowDown")
        return call()

    def read_versioned(self, path: str, limit: int | None = None) -> Versioned | None:
        return self.inner.read_versioned(path, limit)

    def create_if_absent(self, path: str, data: bytes) -> str:
        return self._maybe_fail("create", lambda: self.inner.create_if_absent(path, data))  # type: ignore[no-any-return]

    def replace_if_version(self, path: str, data: bytes, version: str) -> str:
        return self._maybe_fail("replace", lambda: self.inner.replace_if_version(path, data, version))  # type: ignore[no-any-return]


def test_transient_failures_are_retried(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("maintainer.runner.lock.RETRY_BACKOFF_S", 0.001)
    store = Flaky(conditional_store(storage), "create", 2)
    with TableLock(storage, "plan-1", store=store) as lock:
        assert lock_json(storage)["owner"] == lock.owner
    # a create that succeeded but whose answer was lost: the retry finds our own lock, adopts it
    other = Storage(storage.full_path("t2"))
    store = Flaky(conditional_store(other), "create", 1, after=True)
    with TableLock(other, "plan-1", store=store) as lock:
        assert lock_json(other)["owner"] == lock.owner and lock.holds()
    # renewal: a transient failure keeps the lock (retried at the next beat)
    store = Flaky(conditional_store(storage), "replace", 1)
    lock = TableLock(storage, "plan-3", store=store)
    lock.acquire()
    lock._stop.set()
    assert lock.renew() and lock.lost is None
    assert lock.renew()
    lock.release()


def test_storage_that_never_answers_fails_the_acquire(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("maintainer.runner.lock.RETRY_BACKOFF_S", 0.001)
    store = Flaky(conditional_store(storage), "create", 100)
    with pytest.raises(ApplyError, match=r"the storage keeps failing \(503 SlowDown\)"):
        TableLock(storage, "plan-1", store=store).acquire()


# -- dead owners ---------------------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_live_lock_of_a_dead_maintainer_process_here_is_taken_over_at_once(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    pid = _dead_pid()
    owner = Owner(socket.gethostname(), pid, "plan-killed", "t0", process_scope()).encode()
    put_lock(storage, StorageLockData(False, clock.now + 300_000, owner))
    check_free(storage, clock)  # the pre-check lets it through
    with TableLock(storage, "plan-2", clock=clock) as lock:
        assert lock_json(storage)["owner"] == lock.owner
    err = caplog.text
    assert f"taking over the lock of maintainer on {socket.gethostname()} pid {pid} (plan plan-killed)" in err


def test_the_live_lock_of_another_host_or_a_live_process_is_not_taken_over(storage: Storage) -> None:
    clock = Clock()
    put_lock(
        storage,
        StorageLockData(False, clock.now + 300_000, Owner("elsewhere", _dead_pid(), "p", "t").encode()),
    )
    with pytest.raises(ApplyError, match="maintainer on elsewhere pid"):
        TableLock(storage, "plan-2", clock=clock).acquire()
    put_lock(
        storage,
        StorageLockData(
            False, clock.now + 300_000, Owner(socket.gethostname(), os.getppid(), "p", "t").encode()
        ),
    )
    with pytest.raises(ApplyError, match=f"pid {os.getppid()} "):
        check_free(storage, clock)


def test_lock_records_say_whether_they_keep_anyone_out() -> None:
    here, scope = socket.gethostname(), process_scope()
    live = LockRecord(StorageLockData(False, 10_000, Owner(here, os.getpid(), "p", "t", scope).encode()))
    assert live.is_live(10_500, here) and not live.owner_is_gone(here, 10_500)
    assert live.owner_is_gone(here, 10_501)
    dead = LockRecord(StorageLockData(False, 10_000, Owner(here, _dead_pid(), "p", "t", scope).encode()))
    assert dead.owner_is_gone(here, 0) and not dead.owner_is_gone("other-host", 0)
    assert LockRecord.decode(b"garbage") is None
    assert pid_alive(os.getpid()) and not pid_alive(0)


# -- processes racing, a killed holder --------------------------------------------------------------


def _contend(root: str, n: int, start: Any, results: Any, done: Any) -> None:
    start.wait()
    try:
        with TableLock(Storage(root), f"plan-{n}", timing=SHORT):
            results.put((n, "acquired"))
            done.wait(10)
    except ApplyError as exc:
        results.put((n, str(exc)))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_processes_racing_for_the_lock_exactly_one_proceeds(storage: Storage) -> None:
    context = multiprocessing.get_context("fork")
    contenders = 6
    start, done, results = context.Barrier(contenders), context.Event(), context.Queue()
    processes = [
        context.Process(target=_contend, args=(storage.base_uri, n, start, results, done))
        for n in range(contenders)
    ]
    for process in processes:
        process.start()
    outcomes = dict(results.get(timeout=20) for _ in range(contenders))
    done.set()
    for process in processes:
        process.join(20)
    winners = [n for n, outcome in outcomes.items() if outcome == "acquired"]
    assert len(winners) == 1, outcomes
    (winner,) = winners
    for n, outcome in outcomes.items():
        if n != winner:
            assert f"locked by another apply or writer: maintainer on {socket.gethostname()} pid" in outcome
            assert f"(plan plan-{winner})" in outcome
    assert lock_json(storage)["expired"] is True


HOLDER = textwrap.dedent(
    """
    import sys, time
    from maintainer.hudi.lock import LockTiming
    from maintainer.runner.lock import TableLock
    from maintainer.storage import Storage
    lock = TableLock(Storage(sys.argv[1]), "plan-killed", timing=LockTiming(1000, 100))
    lock.acquire()
    print("held", flush=True)
    time.sleep(60)
    """
)


def _hold_then_kill(root: str) -> int:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, root], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    time.sleep(0.25)  # it renews a few times
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    return holder.pid


def test_a_killed_holders_lock_runs_out_by_hudis_rule_then_is_taken_over(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = _hold_then_kill(storage.base_uri)
    record = read_lock(storage)
    assert record is not None and not record.data.expired and f"/{pid}/" in record.data.owner
    # seen from another host (no dead-process shortcut): only Hudi's rule applies
    monkeypatch.setattr(socket, "gethostname", lambda: "another-host")
    with pytest.raises(ApplyError, match=f"locked by another apply or writer: maintainer on .* pid {pid}"):
        TableLock(storage, "plan-next", timing=SHORT).acquire()
    wait_s = (record.data.valid_until + 501) / 1000 - time.time()
    assert 0 < wait_s <= 1.5
    time.sleep(wait_s)
    with TableLock(storage, "plan-next", timing=SHORT) as lock:
        assert lock_json(storage)["owner"] == lock.owner


def test_a_killed_holders_lock_on_this_host_is_taken_over_at_once(storage: Storage) -> None:
    pid = _hold_then_kill(storage.base_uri)
    record = read_lock(storage)
    assert record is not None and record.data.binds(time.time_ns() // 10**6)
    with TableLock(storage, "plan-next", timing=SHORT) as lock:
        assert lock_json(storage)["owner"] == lock.owner and f"/{pid}/" not in lock.owner


# -- instant times are generated under the lock ----------------------------------------------------


def test_an_executors_clock_is_read_only_while_the_table_lock_is_held(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "clean", NodeStatus.CHANGES))
    table = Storage(str(tmp_path / "a"))
    held_when_read: list[bool] = []
    real = utc_now

    def watched_clock() -> Any:
        record = read_lock(table)
        held_when_read.append(record is not None and record.data.binds(time.time_ns() // 10**6))
        return real()

    def execute(ctx: NodeContext) -> NodeOutcome:
        ctx.clock()  # what every executor's instant time comes from
        return NodeOutcome(message="done")

    runner = PlanRunner(
        saved, {"a": spec(tmp_path, "a")}, lambda: None, executors=lambda _: execute, clock=watched_clock
    )
    apply_plan(saved, graph_of(saved), runner)
    assert held_when_read == [True]
    record = read_lock(table)
    assert record is not None and record.data.expired


# -- the dead-owner shortcut needs the same host, boot and PID namespace ------------------------------

OTHER_NAMESPACE = "0" * 32 + ".1"


def test_this_process_has_a_scope_of_boot_id_and_pid_namespace() -> None:
    scope = process_scope()
    boot, namespace = scope.split(".")
    assert len(boot) == 32 and int(namespace) > 0
    assert Owner.parse(Owner("h", 7, "p" * 12, "t", scope).encode()) == Owner("h", 7, "p" * 12, "t", scope)


def test_a_dead_pid_proves_nothing_from_another_pid_namespace_or_boot() -> None:
    here, scope = socket.gethostname(), process_scope()
    pid = _dead_pid()
    same = LockRecord(StorageLockData(False, 10_000, Owner(here, pid, "p", "t", scope).encode()))
    assert same.owner_is_dead_here(here, scope)
    assert not same.owner_is_dead_here(here, OTHER_NAMESPACE), "another namespace sees other pids"
    assert not same.owner_is_dead_here(here, ""), "a looker with no /proc proves nothing"
    foreign = Owner(here, pid, "p", "t", OTHER_NAMESPACE).encode()
    elsewhere = LockRecord(StorageLockData(False, 10_000, foreign))
    assert not elsewhere.owner_is_dead_here(here, scope)
    assert elsewhere.is_live(10_000, here, scope) and elsewhere.owner_is_gone(here, 10_501, scope)


def test_an_owner_without_a_scope_is_taken_over_only_once_its_lease_runs_out(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    legacy = f"maintainer/{socket.gethostname()}/{_dead_pid()}/plan-killed/t0"  # an earlier version's owner
    assert Owner.parse(legacy) is not None and Owner.parse(legacy).scope == ""  # type: ignore[union-attr]
    put_lock(storage, StorageLockData(False, clock.now + 300_000, legacy))
    with pytest.raises(ApplyError, match="locked by another apply"):
        TableLock(storage, "plan-2", clock=clock).acquire()
    clock.now += 300_501
    with TableLock(storage, "plan-2", clock=clock) as lock:
        assert lock_json(storage)["owner"] == lock.owner
    assert "ran out" in caplog.text


def test_a_lock_written_in_another_pid_namespace_is_not_taken_over(storage: Storage) -> None:
    clock = Clock()
    owner = Owner(socket.gethostname(), _dead_pid(), "plan-other", "t0", OTHER_NAMESPACE).encode()
    put_lock(storage, StorageLockData(False, clock.now + 300_000, owner))
    with pytest.raises(ApplyError, match="locked by another apply or writer: maintainer on"):
        check_free(storage, clock)
    with pytest.raises(ApplyError, match="locked by another apply or writer: maintainer on"):
        TableLock(storage, "plan-2", clock=clock).acquire()
