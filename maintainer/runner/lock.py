"""A per-table lock that keeps two applies off one table.

The lock is ``.hoodie/.maintainer/lock`` (JSON: owner host and pid, plan id, a token, the
heartbeat in epoch ms), created write-once: atomically on local disk; on object stores
check-then-write, then read back after a short settle time, so that two applies racing for it
cannot both go on. While held, a background thread refreshes the heartbeat; a lock without a
heartbeat for ``expiry_ms`` (10 minutes by default) is stale (its owner died) and is broken with
a warning; so, at once, is a lock whose owner ran on this host and whose process is gone (a
killed apply). A live lock makes :meth:`TableLock.acquire` fail with an error naming its owner;
:func:`check_free` says so before an apply starts anything (Spark, the first node).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import TracebackType

from maintainer.console import print_warning
from maintainer.errors import ApplyError, FileExistsInStorageError, StorageError
from maintainer.storage import Storage

LOCK_PATH = ".hoodie/.maintainer/lock"
DEFAULT_EXPIRY_MS = 10 * 60 * 1000
DEFAULT_HEARTBEAT_S = 30.0
UNREADABLE_RETRY_S = 0.2
OBJECT_STORE_SETTLE_S = 2.0
"""On object stores the lock is created check-then-write: another apply that checked at the same
moment may overwrite it. After this long, the lock is read back; only the apply whose token is
there goes on."""

Clock = Callable[[], int]


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
    except PermissionError:
        return True
    except OSError:
        return True  # cannot tell: assume it is alive, the heartbeat expiry still applies
    return True


def read_lock(storage: Storage) -> LockRecord | None:
    """The lock record of the table, None when unlocked or unreadable."""
    try:
        return LockRecord.decode(storage.read_bytes(LOCK_PATH))
    except StorageError:
        return None


def check_free(storage: Storage, clock: Clock = epoch_ms) -> None:
    """ApplyError naming the owner when another apply holds the table's lock now (a stale lock,
    or one whose owner's process is gone, is taken over when the node runs)."""
    record = read_lock(storage)
    if record is not None and record.is_live(clock(), socket.gethostname()):
        raise _locked_error(storage, record, clock())


def _locked_error(storage: Storage, record: LockRecord, now_ms: int) -> ApplyError:
    return ApplyError(
        f"the table is locked by another apply: {record.owner()}, "
        f"last heartbeat {(now_ms - record.heartbeat_ms) // 1000} s ago",
        where=storage.uri(LOCK_PATH),
        hint="wait for that apply to finish (a dead owner's lock expires "
        f"{record.expiry_ms // 60000} min after its last heartbeat, at once when it ran on this host)",
    )


@dataclass(frozen=True, slots=True)
class LockRecord:
    host: str
    pid: int
    plan_id: str
    token: str
    heartbeat_ms: int
    expiry_ms: int

    def owner(self) -> str:
        return f"{self.host} pid {self.pid} (plan {self.plan_id[:12]})"

    def is_stale(self, now_ms: int) -> bool:
        return now_ms - self.heartbeat_ms > self.expiry_ms

    def owner_is_gone(self, host: str) -> bool:
        """Did the owner run on ``host`` (this one) in a process that no longer exists?"""
        return self.host == host and not pid_alive(self.pid)

    def is_live(self, now_ms: int, host: str) -> bool:
        return not self.is_stale(now_ms) and not self.owner_is_gone(host)

    def encode(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def decode(cls, data: bytes) -> LockRecord | None:
        """None for an unreadable record (a crash while writing it): treated as stale."""
        try:
            raw = json.loads(data)
            return cls(
                host=str(raw["host"]),
                pid=int(raw["pid"]),
                plan_id=str(raw["plan_id"]),
                token=str(raw["token"]),
                heartbeat_ms=int(raw["heartbeat_ms"]),
                expiry_ms=int(raw["expiry_ms"]),
            )
        except (ValueError, KeyError, TypeError):
            return None


class TableLock:
    """``with TableLock(storage, plan_id):`` holds the table's lock for the block."""

    def __init__(
        self,
        storage: Storage,
        plan_id: str,
        *,
        expiry_ms: int = DEFAULT_EXPIRY_MS,
        heartbeat_s: float = DEFAULT_HEARTBEAT_S,
        clock: Clock = epoch_ms,
        settle_s: float = OBJECT_STORE_SETTLE_S,
    ) -> None:
        self.storage = storage
        self.plan_id = plan_id
        self.expiry_ms = expiry_ms
        self.heartbeat_s = heartbeat_s
        self.clock = clock
        self.settle_s = settle_s
        self.token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- records ------------------------------------------------------------------------------
    def _record(self) -> LockRecord:
        return LockRecord(
            socket.gethostname(), os.getpid(), self.plan_id, self.token, self.clock(), self.expiry_ms
        )

    def _read(self) -> tuple[bytes, LockRecord | None] | None:
        try:
            data = self.storage.read_bytes(LOCK_PATH)
        except StorageError:
            return None if not self.storage.exists(LOCK_PATH) else (b"", None)
        return data, LockRecord.decode(data)

    # -- acquire / release ----------------------------------------------------------------------
    def acquire(self) -> None:
        for _ in range(3):
            try:
                self.storage.write_if_absent(LOCK_PATH, self._record().encode())
            except FileExistsInStorageError:
                self._break_if_stale()
                continue
            self._confirm_ownership()
            self._start_heartbeat()
            return
        raise ApplyError(
            "could not take the table lock: it keeps changing hands",
            where=self.storage.uri(LOCK_PATH),
            hint="another apply is starting on this table; retry when it is done",
        )

    def _confirm_ownership(self) -> None:
        """Local files are created atomically (``O_EXCL``); on an object store, read the lock
        back once a racing writer's overwrite would have landed."""
        if self.storage.is_local:
            return
        time.sleep(self.settle_s)
        if not self.holds():
            found = self._read()
            record = found[1] if found is not None else None
            raise ApplyError(
                "another apply took the table lock at the same moment"
                + (f": {record.owner()}" if record is not None else ""),
                where=self.storage.uri(LOCK_PATH),
                hint="wait for that apply to finish, then make the plan again (or retry this one)",
            )

    def _break_if_stale(self) -> None:
        found = self._read()
        if found is None:
            return  # released in between: try again
        data, record = found
        if record is None:  # being written right now, or left unreadable by a crash
            time.sleep(UNREADABLE_RETRY_S)
            found = self._read()
            if found is None:
                return
            data, record = found
        host = socket.gethostname()
        if record is not None and record.is_live(self.clock(), host):
            raise _locked_error(self.storage, record, self.clock())
        if record is not None and not record.is_stale(self.clock()):
            print_warning(
                f"taking over the lock of {record.owner()} on {self.storage.base_uri}: "
                f"process {record.pid} no longer runs on this host (a killed apply)"
            )
        else:
            owner = record.owner() if record is not None else "unreadable lock file"
            print_warning(f"breaking the stale lock of {owner} on {self.storage.base_uri}")
        again = self._read()
        if again is not None and again[0] == data:
            self.storage.delete(LOCK_PATH)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        found = self._read()
        if found is not None and found[1] is not None and found[1].token == self.token:
            self.storage.delete(LOCK_PATH)

    def holds(self) -> bool:
        found = self._read()
        return found is not None and found[1] is not None and found[1].token == self.token

    # -- heartbeat ----------------------------------------------------------------------------------
    def heartbeat(self) -> None:
        """Refresh the heartbeat (only while the lock is still ours), replacing the file whole:
        a reader never sees it half written (object-store PUTs are atomic; locally a rename)."""
        if not self.holds():
            return
        data = self._record().encode()
        if not self.storage.is_local:
            self.storage.write_bytes(LOCK_PATH, data)
            return
        scratch = f"{LOCK_PATH}.{self.token}.tmp"
        self.storage.write_bytes(scratch, data)
        try:
            self.storage.arrow_fs.move(self.storage.full_path(scratch), self.storage.full_path(LOCK_PATH))
        except OSError as exc:
            raise StorageError(f"cannot refresh the lock: {exc}", where=self.storage.uri(LOCK_PATH)) from exc

    def _start_heartbeat(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._beat, name="maintainer-lock-heartbeat", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            try:
                self.heartbeat()
            except StorageError as exc:  # keep going: the next beat may succeed
                print_warning(f"lock heartbeat failed on {self.storage.base_uri}: {exc}")

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
