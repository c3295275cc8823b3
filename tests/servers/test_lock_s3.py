"""Hudi's storage-based lock on a real S3 server (moto's): conditional PUTs, lockers racing, an
expired lock taken over, renewal, release, and a server that ignores the conditions."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from maintainer.errors import ApplyError, FileExistsInStorageError, PreconditionFailedError, StorageError
from maintainer.hudi.lock import LOCK_PATH, LockTiming, StorageLockData
from maintainer.runner.lock import Owner, TableLock, check_free, read_lock
from maintainer.storage import Storage, conditional_store
from maintainer.storage import conditional as conditional_module
from maintainer.storage.conditional import S3ConditionalStore
from maintainer.storage.s3 import s3_client

pytestmark = pytest.mark.servers

HUDI_OWNER = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
SHORT = LockTiming(validity_ms=1000, renew_interval_ms=100)


@pytest.fixture(autouse=True)
def fresh_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test checks its endpoint afresh (the check is once per endpoint and process)."""
    monkeypatch.setattr(conditional_module, "_VERIFIED", set())


def table(s3_server: Any, bucket: str) -> Storage:
    return Storage(s3_server.create_bucket(bucket) + "/lake/t", s3_server.storage_options())


def lock_object(s3_server: Any, bucket: str) -> bytes:
    body: bytes = s3_server.client().get_object(Bucket=bucket, Key=f"lake/t/{LOCK_PATH}")["Body"].read()
    return body


def test_conditional_puts_on_the_server(s3_server: Any) -> None:
    storage = table(s3_server, "lock-conditional")
    store = conditional_store(storage)
    assert isinstance(store, S3ConditionalStore)
    before = len(s3_server.requests())
    first = store.create_if_absent(LOCK_PATH, b"one")
    with pytest.raises(FileExistsInStorageError):
        store.create_if_absent(LOCK_PATH, b"two")
    found = store.read_versioned(LOCK_PATH)
    assert found is not None and (found.data, found.version) == (b"one", first)
    second = store.replace_if_version(LOCK_PATH, b"two", first)
    with pytest.raises(PreconditionFailedError):
        store.replace_if_version(LOCK_PATH, b"three", first)
    assert store.read_versioned(LOCK_PATH) == conditional_module.Versioned(b"two", second)
    key = f"/lock-conditional/lake/t/{LOCK_PATH}"
    sent = [(r.method, r.path, r.status) for r in s3_server.requests()[before:]]
    assert sent == [("PUT", key, 200), ("PUT", key, 412), ("GET", key, 200), ("PUT", key, 200),
                    ("PUT", key, 412), ("GET", key, 200)]  # fmt: skip


def test_write_if_absent_is_one_conditional_put(s3_server: Any) -> None:
    storage = table(s3_server, "lock-write-once")
    before = len(s3_server.requests())
    storage.write_if_absent(".hoodie/20250101000000000.clean.requested", b"plan")
    key = "/lock-write-once/lake/t/.hoodie/20250101000000000.clean.requested"
    assert [(r.method, r.path, r.status) for r in s3_server.requests()[before:]] == [("PUT", key, 200)]
    storage.write_if_absent(".hoodie/20250101000000000.clean.requested", b"plan")  # our own, again: fine
    with pytest.raises(FileExistsInStorageError, match="it already exists"):
        storage.write_if_absent(".hoodie/20250101000000000.clean.requested", b"another plan")
    assert storage.read_bytes(".hoodie/20250101000000000.clean.requested") == b"plan"


def test_lockers_racing_on_one_s3_table_exactly_one_wins(s3_server: Any) -> None:
    storage = table(s3_server, "lock-race")
    contenders = 8
    start, done = threading.Barrier(contenders), threading.Event()
    outcomes: dict[int, str] = {}

    def contend(n: int) -> None:
        lock = TableLock(Storage(storage.base_uri, storage.options), f"plan-{n}", timing=SHORT)
        start.wait()
        try:
            with lock:
                outcomes[n] = "acquired"
                done.wait(10)
        except ApplyError as exc:
            outcomes[n] = str(exc)

    threads = [threading.Thread(target=contend, args=(n,)) for n in range(contenders)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while len(outcomes) < contenders and time.monotonic() < deadline:
        time.sleep(0.01)
    done.set()
    for thread in threads:
        thread.join(20)
    winners = [n for n, outcome in outcomes.items() if outcome == "acquired"]
    assert len(winners) == 1, outcomes
    for n, outcome in outcomes.items():
        if n != winners[0]:
            assert (
                "locked by another apply or writer: maintainer on" in outcome
                and f"(plan plan-{winners[0]})" in outcome
            )
    released = StorageLockData.decode(lock_object(s3_server, "lock-race"))
    owner = Owner.parse(released.owner)
    assert released.expired and owner is not None and owner.plan == f"plan-{winners[0]}"


def test_a_hudi_writers_lock_binds_until_it_runs_out_then_is_taken_over(s3_server: Any) -> None:
    storage = table(s3_server, "lock-expired")
    now = time.time_ns() // 1_000_000
    hudis = b'{"expired":false,"validUntil":%d,"owner":"%s"}' % (now + 400, HUDI_OWNER.encode())
    s3_server.client().put_object(Bucket="lock-expired", Key=f"lake/t/{LOCK_PATH}", Body=hudis)
    check_free(storage)  # a writer's lock is waited for when the node runs
    with pytest.raises(ApplyError, match=f"another writer, owner '{HUDI_OWNER}'"):
        TableLock(storage, "plan-1", timing=SHORT, wait_for_writer_s=0).acquire()
    time.sleep(max(0.0, (now + 400 + 501) / 1000 - time.time()))  # past validUntil + 500 ms
    with TableLock(storage, "plan-1", timing=SHORT, wait_for_writer_s=0) as lock:
        raw = lock_object(s3_server, "lock-expired")
        held = StorageLockData.decode(raw)
        assert raw == StorageLockData(False, held.valid_until, lock.owner).encode()
        assert list(json.loads(raw)) == ["expired", "validUntil", "owner"]
        assert not held.expired and held.owner == lock.owner
        renewed_from = held.valid_until
        deadline = time.monotonic() + 2
        while StorageLockData.decode(lock_object(s3_server, "lock-expired")).valid_until == renewed_from:
            assert time.monotonic() < deadline, "never renewed"
            time.sleep(0.02)
    released = StorageLockData.decode(lock_object(s3_server, "lock-expired"))
    assert released.expired and released.owner == lock.owner


def test_checking_the_endpoint_costs_one_request_per_process(s3_server: Any) -> None:
    first = table(s3_server, "lock-probe")
    key = f"/lock-probe/lake/t/{LOCK_PATH}"
    before = len(s3_server.requests())
    with TableLock(first, "plan-1"):
        pass
    sent = [(r.method, r.path, r.status) for r in s3_server.requests()[before:]]
    # read (none), create, the check (refused), release
    assert sent == [("GET", key, 404), ("PUT", key, 200), ("PUT", key, 412), ("PUT", key, 200)]
    before = len(s3_server.requests())
    with TableLock(first, "plan-2"):
        pass
    sent = [(r.method, r.path, r.status) for r in s3_server.requests()[before:]]
    # read (released), take over, the If-Match check (refused), release
    assert sent == [("GET", key, 200), ("PUT", key, 200), ("PUT", key, 412), ("PUT", key, 200)]
    second = table(s3_server, "lock-probe-2")
    before = len(s3_server.requests())
    with TableLock(second, "plan-3"):
        pass
    assert [r.status for r in s3_server.requests()[before:]] == [404, 200, 200]  # no check any more


def ignoring_client(s3_server: Any) -> Any:
    """A client whose requests reach the server without their conditional headers: the server
    behaves as one that ignores them."""
    import boto3

    client = boto3.session.Session().client(
        "s3",
        endpoint_url=s3_server.endpoint,
        aws_access_key_id="maintainer-test",
        aws_secret_access_key="maintainer-test-secret",
        region_name="us-east-1",
    )

    def strip(request: Any, **_: Any) -> None:
        for header in ("If-None-Match", "If-Match"):
            if header in request.headers:
                del request.headers[header]

    client.meta.events.register("before-sign.s3.PutObject", strip)
    return client


def test_a_server_ignoring_conditional_writes_is_refused_naming_it(s3_server: Any) -> None:
    storage = table(s3_server, "lock-ignoring")
    store = S3ConditionalStore(storage, ignoring_client(s3_server))
    with pytest.raises(StorageError) as refused:
        TableLock(storage, "plan-1", store=store).acquire()
    message = str(refused.value)
    assert (
        f"this S3 ({s3_server.host_port}) endpoint does not honour conditional writes (If-None-Match)"
        in message
    )
    assert "maintainer cannot lock tables there" in message
    record = read_lock(storage)
    assert record is not None and record.data.expired, "the lock it took is given back"


def test_the_storage_options_build_the_same_client_for_every_table(s3_server: Any) -> None:
    options = s3_server.storage_options()
    assert s3_client(options) is s3_client(dict(options))
