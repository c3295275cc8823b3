"""The table lock: Hudi 1.x's storage-based lock, so that maintainer and a Hudi writer configured
with ``StorageBasedLockProvider`` exclude each other (and two applies exclude each other).

The protocol is Hudi's (:mod:`maintainer.hudi.lock` has the facts): the object
``.hoodie/.locks/table_lock.json``, ``{"expired":…,"validUntil":…,"owner":…}``, written only
with conditional writes (:mod:`maintainer.storage.conditional`: S3 ``If-None-Match``/``If-Match``,
GCS generations, local disk a rename under a guard lock; HDFS has none and is refused).

* :meth:`TableLock.acquire`: read the object. None: create it. One that still binds by Hudi's
  rule (not ``expired`` and now ≤ ``validUntil`` + 500 ms): :class:`ApplyError` naming its owner
  and until when it is valid. One that no longer binds (released, or its owner stopped
  renewing): take it over with ``If-Match`` on the version read. A conditional write refused
  means another writer got there first: read again (it names the winner). A transient error
  (throttling, 5xx, no answer) is retried a few times. No settle wait: the server decides.
* One extension, for maintainer's own locks only: a lock whose owner is a maintainer process that
  provably no longer runs (a killed apply) is taken over at once, still with ``If-Match``,
  instead of after its validity. "Provably" means the owner string records the same host name,
  the same boot (``/proc/sys/kernel/random/boot_id``) and the same PID namespace
  (``/proc/self/ns/pid``) as the process looking, and no process has the owner's pid. A host
  name alone proves nothing: containers sharing the host network (Docker ``--network host``,
  Kubernetes ``hostNetwork``) share the name, not the PIDs. Anything less (another namespace,
  another boot, an owner without the record, a Hudi writer's bare UUID): the lease decides, and
  the lock is taken over only once it has run out.
* Renewal: a daemon thread rewrites the object every renewal interval (Hudi's 30 s) with
  ``validUntil = now + validity`` (Hudi's 5 min), ``If-Match`` on the version it last wrote. A
  transient failure is retried at the next beat (as Hudi does).
* **Losing the lock**: the lock is lost when a renewal is refused (the version changed: another
  writer took it over), or when the lease runs out locally: a monotonic deadline of validity
  minus one renewal interval after the start of the last successful write (so a write begun
  before it ends well before another writer may take over, which it cannot before ``validUntil``
  + 500 ms by its clock). While the lock is held it sets a *write fence* on the table
  (``maintainer.storage.set_write_fence``): every write and delete any :class:`Storage` of this
  process makes in the table first checks the lock, and a lost lock raises :class:`ApplyError`
  there, so the node stops before its next write (its commit included) and fails. Files Spark
  executors write in other processes are not fenced; they are not part of the table until the
  driver's commit, which is.
* :meth:`TableLock.release` is Hudi's ``unlock``: stop renewing, then write ``expired: true``
  (``validUntil`` unchanged) with ``If-Match``: the object stays, marked expired.
* The owner string is ``maintainer/<host>/<pid>/<plan id, 12>/<uuid>/<boot id>.<pid namespace>``:
  unique per lock, and it tells a human (and the dead-owner rule) who holds it. Hudi only
  compares owners for equality. (Owners of earlier versions lack the last part: their locks are
  taken over only once run out.)
* :func:`check_free` says before an apply starts anything (Spark, the first node) that a table
  is locked.
* Table-service instant times are generated under the lock: every executor runs inside
  ``with TableLock(...)`` and takes its instant times from ``ctx.clock`` there.

The previous maintainer lock (``.hoodie/.maintainer/lock``, before this protocol) is ignored: an
apply of an older maintainer version still running on the table is not seen; let it finish
before upgrading. A leftover file of it is harmless and may be deleted.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from types import TracebackType

from maintainer.errors import (
    ApplyError,
    CorruptFileError,
    FileExistsInStorageError,
    PreconditionFailedError,
    StorageError,
    StorageUnavailableError,
)
from maintainer.executors.faults import Stopped, stop_requested
from maintainer.hudi.lock import LOCK_PATH, LockTiming, StorageLockData
from maintainer.logs import fields, get_logger
from maintainer.storage import (
    ConditionalStore,
    Storage,
    clear_write_fence,
    conditional_store,
    set_write_fence,
)
from maintainer.storage.limits import MAX_LOCK_BYTES

__all__ = [
    "LOCK_PATH",
    "LockRecord",
    "LockTiming",
    "Owner",
    "TableLock",
    "check_free",
    "epoch_ms",
    "pid_alive",
    "process_scope",
    "read_lock",
]

log = get_logger(__name__)

OLD_LOCK_PATH = ".hoodie/.maintainer/lock"
"""The lock of maintainer versions before Hudi's protocol: ignored."""
ACQUIRE_ATTEMPTS = 5
RETRY_BACKOFF_S = 0.2
"""After a transient storage error: wait this long, doubled each time."""
RELEASE_ATTEMPTS = 3
WAIT_FOR_WRITER_S = 60.0
"""How long acquiring waits while a Hudi writer holds the lock (Hudi's writers hold it briefly,
around a commit; their own default wait is ``hoodie.write.lock.wait_time_ms``, 60 s). Another
maintainer apply's lock (held for a whole node) is refused at once."""
WRITER_POLL_S = 1.0
"""How often the lock is read again meanwhile (Hudi's ``wait_time_ms_between_retry``)."""

Clock = Callable[[], int]
Monotonic = Callable[[], float]


def epoch_ms() -> int:
    return time.time_ns() // 1_000_000


def pid_alive(pid: int) -> bool:
    """Is there a process ``pid`` on this host? (One we may not signal is alive.)"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # cannot tell (or may not signal it): alive; its validity still applies
    return True


def _utc(epoch_milliseconds: int) -> str:
    moment = datetime.fromtimestamp(epoch_milliseconds / 1000, timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"
PID_NAMESPACE_PATH = "/proc/self/ns/pid"
_PROOF_PART = re.compile(r"^[0-9a-f]{32}\.[0-9]{1,20}$")


def _read_boot_id() -> str:
    try:
        with open(BOOT_ID_PATH, encoding="ascii") as source:
            return source.read(64).strip().replace("-", "").lower()
    except OSError:
        return ""


def _read_pid_namespace() -> str:
    try:
        link = os.readlink(PID_NAMESPACE_PATH)  # "pid:[4026531836]"
    except OSError:
        return ""
    return link[len("pid:[") : -1] if link.startswith("pid:[") and link.endswith("]") else ""


def process_scope() -> str:
    """``<boot id>.<pid namespace inode>`` of this process: two processes with the same scope see
    the same PIDs. Empty where the system does not say (no /proc): no dead-owner shortcut then."""
    boot, namespace = _read_boot_id(), _read_pid_namespace()
    scope = f"{boot}.{namespace}"
    return scope if _PROOF_PART.match(scope) else ""


@dataclass(frozen=True, slots=True)
class Owner:
    """Who holds a lock maintainer took: the owner string names it."""

    host: str
    pid: int
    plan: str
    token: str
    scope: str = ""
    """:func:`process_scope` of the holder (empty: unknown, as in earlier versions' owners)."""

    PREFIX = "maintainer"

    def encode(self) -> str:
        base = f"{self.PREFIX}/{self.host}/{self.pid}/{self.plan[:12]}/{self.token}"
        return f"{base}/{self.scope}" if self.scope else base

    @classmethod
    def parse(cls, owner: str) -> Owner | None:
        """The maintainer owner ``owner`` names, None for any other (a Hudi writer's UUID)."""
        parts = owner.split("/")
        if len(parts) not in (5, 6) or parts[0] != cls.PREFIX or not parts[2].isdigit():
            return None
        scope = parts[5] if len(parts) == 6 and _PROOF_PART.match(parts[5]) else ""
        return cls(parts[1], int(parts[2]), parts[3], parts[4], scope)

    def describe(self) -> str:
        return f"maintainer on {self.host} pid {self.pid} (plan {self.plan})"

    def provably_gone(self, host: str, scope: str) -> bool:
        """Does this owner provably no longer run? Only when it ran where the caller runs (same
        host name, boot and PID namespace: ``scope``) and no process there has its pid."""
        same_place = bool(scope) and self.scope == scope and self.host == host
        return same_place and not pid_alive(self.pid)


def describe_owner(owner: str) -> str:
    parsed = Owner.parse(owner)
    if parsed is not None:
        return parsed.describe()
    return f"another writer, owner {owner!r} (a Hudi writer's owner is a UUID)"


@dataclass(frozen=True, slots=True)
class LockRecord:
    """The table's lock object as maintainer reads it."""

    data: StorageLockData
    version: str = ""

    @classmethod
    def decode(cls, data: bytes, version: str = "") -> LockRecord | None:
        """None for bytes that are not Hudi's lock data."""
        try:
            return cls(StorageLockData.decode(data), version)
        except CorruptFileError:
            return None

    def owner(self) -> str:
        return describe_owner(self.data.owner)

    def held_by_maintainer(self) -> bool:
        return Owner.parse(self.data.owner) is not None

    def owner_is_dead_here(self, host: str, scope: str | None = None) -> bool:
        """Is the owner a maintainer process that provably no longer runs, judged from a process
        on ``host`` in ``scope`` (default: this process's, :func:`process_scope`)?"""
        parsed = Owner.parse(self.data.owner)
        here = process_scope() if scope is None else scope
        return parsed is not None and parsed.provably_gone(host, here)

    def is_live(self, now_ms: int, host: str, scope: str | None = None) -> bool:
        """Does the lock bind (Hudi's rule), its owner not provably a dead maintainer process?"""
        return self.data.binds(now_ms) and not self.owner_is_dead_here(host, scope)

    def owner_is_gone(self, host: str, now_ms: int | None = None, scope: str | None = None) -> bool:
        """Does the lock no longer keep anyone out (released, run out, or its maintainer owner
        provably gone)?"""
        return not self.is_live(epoch_ms() if now_ms is None else now_ms, host, scope)


def _decode(found_data: bytes, version: str, where: str) -> LockRecord:
    try:
        return LockRecord(StorageLockData.decode(found_data, where), version)
    except CorruptFileError as exc:
        raise ApplyError(
            f"the table's lock object cannot be read as Hudi's lock: {exc.message}",
            where=where,
            hint="something other than Hudi or maintainer wrote it; check who, then delete it",
        ) from exc


def read_lock(storage: Storage) -> LockRecord | None:
    """The table's lock object, None where there is none; ApplyError when it is not Hudi's."""
    found = conditional_store(storage).read_versioned(LOCK_PATH, MAX_LOCK_BYTES)
    if found is None:
        return None
    return _decode(found.data, found.version, storage.uri(LOCK_PATH))


def _locked_error(storage: Storage, record: LockRecord, now_ms: int) -> ApplyError:
    left_s = max(0, (record.data.valid_until - now_ms) // 1000)
    return ApplyError(
        f"the table is locked by another apply or writer: {record.owner()}; "
        f"the lock is valid until {_utc(record.data.valid_until)} ({left_s} s from now) unless renewed",
        where=storage.uri(LOCK_PATH),
        hint="wait for that writer to finish (a lock its owner stops renewing binds until "
        "0.5 s after its validity; a killed apply's lock is taken over at once only from the same "
        "host, boot and PID namespace)",
    )


def check_free(storage: Storage, clock: Clock = epoch_ms) -> None:
    """ApplyError naming the owner when another maintainer apply holds the table's lock now (a
    released lock, a run-out one, or a dead maintainer process's on this host is taken over when
    the node runs; a Hudi writer's lock is waited for then, see :data:`WAIT_FOR_WRITER_S`)."""
    record = read_lock(storage)
    now = clock()
    if record is not None and record.is_live(now, socket.gethostname()) and record.held_by_maintainer():
        raise _locked_error(storage, record, now)


class _HeldByWriter(Exception):
    """A Hudi writer holds the lock right now (acquiring waits for it)."""

    def __init__(self, record: LockRecord) -> None:
        super().__init__(record.owner())
        self.record = record


class TableLock:
    """``with TableLock(storage, plan_id):`` holds the table's lock for the block (see the
    module docstring)."""

    def __init__(
        self,
        storage: Storage,
        plan_id: str,
        *,
        timing: LockTiming | None = None,
        clock: Clock = epoch_ms,
        monotonic: Monotonic = time.monotonic,
        store: ConditionalStore | None = None,
        wait_for_writer_s: float = WAIT_FOR_WRITER_S,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.storage = storage
        self.wait_for_writer_s = wait_for_writer_s
        self.sleep = sleep
        self.plan_id = plan_id
        self.timing = timing or LockTiming()
        self.clock = clock
        self.monotonic = monotonic
        self._store = store
        self.host = socket.gethostname()
        self.scope = process_scope()
        self.owner = Owner(self.host, os.getpid(), plan_id, uuid.uuid4().hex, self.scope).encode()
        self.where = storage.uri(LOCK_PATH)
        self._root = storage.uri("")
        self._state = threading.Lock()
        self._held: StorageLockData | None = None
        self._version = ""
        self._deadline = 0.0
        self.lost: str | None = None
        """Why the lock was lost while held (None while held or never taken)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fence = self.check

    @property
    def store(self) -> ConditionalStore:
        if self._store is None:
            self._store = conditional_store(self.storage)
        return self._store

    # -- acquire ------------------------------------------------------------------------------
    def acquire(self) -> None:
        failure: StorageError | None = None
        waited_until = self.monotonic() + self.wait_for_writer_s
        attempt = 0
        while attempt < ACQUIRE_ATTEMPTS:
            try:
                if self._try_acquire():
                    break
            except StorageUnavailableError as exc:
                failure = exc
                self.sleep(RETRY_BACKOFF_S * 2**attempt)
            except _HeldByWriter as held:
                if self.monotonic() >= waited_until:
                    raise _locked_error(self.storage, held.record, self.clock()) from None
                self.sleep(WRITER_POLL_S)
                continue  # waiting for a writer's commit is not a failed attempt
            attempt += 1
        else:
            raise ApplyError(
                "could not take the table lock: "
                + (
                    f"the storage keeps failing ({failure.message})" if failure else "it keeps changing hands"
                ),
                where=self.where,
                hint="retry when the storage answers again"
                if failure
                else "other writers are taking it right now; retry when they are done",
            )
        set_write_fence(self._root, self._fence)
        self._stop.clear()
        self._thread = threading.Thread(target=self._renew_loop, name="maintainer-lock-renewal", daemon=True)
        self._thread.start()

    def _try_acquire(self) -> bool:
        """One pass: True when the lock is ours, False when another writer got there first."""
        store = self.store
        found = store.read_versioned(LOCK_PATH, MAX_LOCK_BYTES)
        if found is None:
            started, data = self._fresh()
            try:
                version = store.create_if_absent(LOCK_PATH, data.encode())
            except FileExistsInStorageError:
                return False
            self._took(data, version, started)
            self._verify(lambda: store.verify_refuses_create(LOCK_PATH, data.encode()))
            return True
        record = _decode(found.data, found.version, self.where)
        now = self.clock()
        if record.data.owner != self.owner:  # ours: a create of ours whose answer was lost
            if record.is_live(now, self.host, self.scope):
                if not record.held_by_maintainer():
                    raise _HeldByWriter(record)
                raise _locked_error(self.storage, record, now)
            if record.data.binds(now):
                self._warn(
                    f"taking over the lock of {record.owner()} on {self.storage.base_uri}: "
                    "that process no longer runs (same host, boot and PID namespace: a killed apply)"
                )
            elif not record.data.expired:
                self._warn(
                    f"taking over the lock of {record.owner()} on {self.storage.base_uri}: it ran out at "
                    f"{_utc(record.data.valid_until)} without being released (its owner stopped renewing it)"
                )
        started, data = self._fresh()
        try:
            version = store.replace_if_version(LOCK_PATH, data.encode(), found.version)
        except PreconditionFailedError:
            return False
        self._took(data, version, started)
        self._verify(lambda: store.verify_refuses_stale_replace(LOCK_PATH, data.encode()))
        return True

    def _fresh(self) -> tuple[float, StorageLockData]:
        return self.monotonic(), StorageLockData.acquired(self.owner, self.clock(), self.timing)

    def _took(self, data: StorageLockData, version: str, started: float) -> None:
        with self._state:
            self._held, self._version, self.lost = data, version, None
            margin_ms = self.timing.renew_interval_ms
            self._deadline = started + (self.timing.validity_ms - margin_ms) / 1000

    def _verify(self, probe: Callable[[], None]) -> None:
        """The endpoint honours the conditions (once per endpoint and process); else give the
        lock back and fail."""
        try:
            probe()
        except StorageError:
            self._expire()
            with self._state:
                self._held = None
            raise

    # -- holding it ---------------------------------------------------------------------------
    def holds(self) -> bool:
        """Held, not lost, and its lease not run out locally."""
        return self._held is not None and self.lost is None and self.monotonic() <= self._deadline

    def check(self) -> None:
        """ApplyError when the lock was lost (the write fence: called before every write into
        the table while the lock is set); :class:`Stopped` when the apply was told to stop now
        (a second Ctrl-C): the write not made, as if the process had been killed just before it,
        which the next apply recovers from."""
        if stop_requested():
            raise Stopped(
                "stopped before the next write into the table, as asked",
                where=self.where,
                hint="apply the same plan again: it resumes where this one stopped",
            )
        if self._held is not None and self.lost is None and self.monotonic() > self._deadline:
            self._lose("it was not renewed in time (its validity ran out here)")
        if self.lost is not None:
            raise ApplyError(
                f"lost the table lock ({self.lost}): stopping before the next write",
                where=self.where,
                hint="another writer may be working on the table; once it is done, make the plan again",
            )

    def _warn(self, message: str) -> None:
        log.warning(
            message, extra=fields(plan_id=self.plan_id, event="table_lock", path=self.storage.base_uri)
        )

    def _lose(self, reason: str) -> None:
        if self.lost is None:
            self.lost = reason
            self._warn(f"lost the table lock on {self.storage.base_uri}: {reason}")

    def renew(self) -> bool:
        """Extend the lock's validity (``If-Match`` the version last written); False once the
        lock is lost and renewal stops, True to go on (a transient failure included)."""
        with self._state:
            if self._held is None or self.lost is not None:
                return False
            if self.monotonic() > self._deadline:
                self._lose("it was not renewed in time (its validity ran out here)")
                return False
            started, data = self._fresh()
            try:
                version = self.store.replace_if_version(LOCK_PATH, data.encode(), self._version)
            except PreconditionFailedError:
                self._lose("another writer changed the lock object: it was taken over")
                return False
            except StorageError as exc:
                self._warn(f"could not renew the table lock on {self.storage.base_uri} (will retry): {exc}")
                return True
            self._held, self._version = data, version
            self._deadline = started + (self.timing.validity_ms - self.timing.renew_interval_ms) / 1000
            return True

    def _renew_loop(self) -> None:
        interval = self.timing.renew_interval_ms / 1000
        while not self._stop.wait(interval):
            if not self.renew():
                return

    # -- release --------------------------------------------------------------------------------
    def release(self) -> None:
        """Hudi's unlock: stop renewing, then mark the object expired (``If-Match``)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        clear_write_fence(self._root, self._fence)
        if self._held is not None and self.lost is None:
            self._expire()
        with self._state:
            self._held = None

    def _expire(self) -> None:
        with self._state:
            held, version = self._held, self._version
        if held is None:
            return
        for attempt in range(RELEASE_ATTEMPTS):
            try:
                self.store.replace_if_version(LOCK_PATH, held.released().encode(), version)
                return
            except PreconditionFailedError:
                self._warn(f"the table lock on {self.storage.base_uri} was taken over before it was released")
                return
            except StorageUnavailableError:
                time.sleep(RETRY_BACKOFF_S * 2**attempt)
            except StorageError as exc:
                self._warn(f"could not release the table lock on {self.storage.base_uri}: {exc}")
                return
        self._warn(
            f"could not release the table lock on {self.storage.base_uri}: it binds until "
            f"{_utc(held.valid_until)} (0.5 s more), then frees itself"
        )

    def __enter__(self) -> TableLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
