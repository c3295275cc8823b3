"""Hudi 1.x's storage-based lock (``StorageBasedLockProvider``, RFC-91) as a pure model: where the
lock object is, its bytes, and when it binds. No I/O: ``maintainer.runner.lock`` takes and renews
it through ``maintainer.storage.conditional``.

The facts, from Hudi's ``StorageBasedLockProvider``, ``StorageLockClient``,
``models/StorageLockData``, ``models/StorageLockFile``, ``config/StorageBasedLockConfig`` and the
S3 and GCS storage lock clients:

* **Object**: ``<base path>/.hoodie/.locks/table_lock.json`` (``LOCKS_FOLDER_NAME`` is
  ``.hoodie/.locks``, ``DEFAULT_TABLE_LOCK_FILE_NAME`` is ``table_lock.json``), one per table.
* **Contents**: ``StorageLockData`` written by Jackson's default ``ObjectMapper``: compact JSON,
  creator properties first in constructor order, i.e. exactly
  ``{"expired":false,"validUntil":1700000000000,"owner":"<owner>"}`` (``expired`` a boolean,
  ``validUntil`` epoch milliseconds as a JSON integer, ``owner`` a string). Reading ignores
  unknown properties and refuses a missing or null ``expired``/``validUntil``.
* **Owner**: Hudi's is a random UUID (``UUID.randomUUID().toString()``) per provider; other
  writers only compare it for equality and log it, so any unique string works (maintainer's
  names its host, process and plan: ``maintainer.runner.lock``).
* **Versions**: S3's ETag (``If-None-Match: *`` to create, ``If-Match: <ETag>`` to replace); GCS's
  generation (``ifGenerationMatch`` 0 to create, the generation to replace). 412 means another
  writer changed it (``ACQUIRED_BY_OTHERS``); 404 on read is no lock; 409, 429 and 5xx are
  ``UNKNOWN_ERROR`` (retry; during renewal the heartbeat goes on).
* **Acquire** (``tryLock``): read the object; if there is one that is still valid, fail ("Lock
  already held by <owner>"); else write ``{expired: false, validUntil: now + validity, owner}``
  conditionally: create where there was none, ``If-Match`` the version read where there was an
  invalid one (a take-over).
* **Validity** (``isLockStillValid``): a lock binds unless ``expired`` is true, or the reader's
  clock is past ``validUntil + 500`` ms (``CLOCK_DRIFT_BUFFER_MS``: a "dangling" lock whose owner
  stopped renewing). So a lock binds through ``validUntil + 500`` inclusive.
* **Renew** (the heartbeat, every ``hoodie.write.lock.storage.heartbeat.poll.secs``, default 30 s):
  ``If-Match`` the holder's version with ``validUntil = now + validity``
  (``hoodie.write.lock.storage.validity.timeout.secs``, default 300 s; Hudi requires the validity
  to be at least 10 s and at least 10 times the renewal interval). 412: the lock was taken by
  others, renewal stops; unknown errors are retried at the next beat.
* **Release** (``unlock``): stop the heartbeat, then ``If-Match`` the holder's version with
  ``{expired: true, validUntil: <unchanged>, owner}``: the object stays, marked expired; it is
  never deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from maintainer.errors import CorruptFileError
from maintainer.storage.limits import MAX_LOCK_BYTES, loads_bounded

LOCKS_FOLDER = ".hoodie/.locks"
LOCK_FILE_NAME = "table_lock.json"
LOCK_PATH = f"{LOCKS_FOLDER}/{LOCK_FILE_NAME}"
"""The lock object, relative to the table's base path."""
_LOCK_HINT = "something other than Hudi or maintainer wrote it; check who, then delete it"

CLOCK_DRIFT_BUFFER_MS = 500
"""A lock whose ``validUntil`` is more than this far in the reader's past no longer binds."""

DEFAULT_VALIDITY_MS = 300_000
"""``hoodie.write.lock.storage.validity.timeout.secs`` default (5 minutes)."""
DEFAULT_RENEW_INTERVAL_MS = 30_000
"""``hoodie.write.lock.storage.heartbeat.poll.secs`` default (30 seconds)."""
VALIDITY_TO_RENEWAL = 10
"""Hudi requires the validity to be at least this many renewal intervals."""


@dataclass(frozen=True, slots=True)
class LockTiming:
    """How long a lock is valid for and how often its holder renews it (Hudi's two settings,
    in milliseconds so tests can use short ones)."""

    validity_ms: int = DEFAULT_VALIDITY_MS
    renew_interval_ms: int = DEFAULT_RENEW_INTERVAL_MS

    def __post_init__(self) -> None:
        if self.renew_interval_ms <= 0 or self.validity_ms < VALIDITY_TO_RENEWAL * self.renew_interval_ms:
            raise ValueError(
                f"lock validity {self.validity_ms} ms must be at least {VALIDITY_TO_RENEWAL} renewal "
                f"intervals ({self.renew_interval_ms} ms), as Hudi requires"
            )


@dataclass(frozen=True, slots=True)
class StorageLockData:
    """Hudi's ``StorageLockData``: the contents of the lock object."""

    expired: bool
    valid_until: int
    """Epoch milliseconds."""
    owner: str

    @classmethod
    def acquired(cls, owner: str, now_ms: int, timing: LockTiming) -> StorageLockData:
        """What a holder writes to take or renew the lock at ``now_ms``."""
        return cls(False, now_ms + timing.validity_ms, owner)

    def released(self) -> StorageLockData:
        """What the holder writes to release it: expired, ``validUntil`` unchanged."""
        return StorageLockData(True, self.valid_until, self.owner)

    def binds(self, now_ms: int) -> bool:
        """Does the lock still bind at the reader's ``now_ms`` (Hudi's ``isLockStillValid``)?"""
        return not self.expired and now_ms <= self.valid_until + CLOCK_DRIFT_BUFFER_MS

    def encode(self) -> bytes:
        """The bytes Hudi's Jackson ``ObjectMapper`` writes for it."""
        expired = "true" if self.expired else "false"
        owner = jackson_string(self.owner)
        return f'{{"expired":{expired},"validUntil":{self.valid_until},"owner":{owner}}}'.encode()

    @classmethod
    def decode(cls, data: bytes, where: str = LOCK_PATH) -> StorageLockData:
        """Read it as Hudi does (unknown properties ignored); CorruptFileError otherwise."""
        if len(data) > MAX_LOCK_BYTES:
            raise CorruptFileError(
                f"the lock object is {len(data):,} bytes: Hudi's is about 100, maintainer reads at "
                f"most {MAX_LOCK_BYTES:,}",
                where=where,
            )
        raw: Any = loads_bounded(
            data, what="the lock object", where=where, error=CorruptFileError, hint=_LOCK_HINT
        )
        if not isinstance(raw, dict):
            raise CorruptFileError("the lock object is not a JSON object", where=where)
        expired, valid_until, owner = raw.get("expired"), raw.get("validUntil"), raw.get("owner", ...)
        problems = []
        if not isinstance(expired, bool):
            problems.append("expired is not a boolean")
        if not isinstance(valid_until, int) or isinstance(valid_until, bool):
            problems.append("validUntil is not an integer")
        if owner is ...:
            problems.append("owner is missing")
        elif owner is not None and not isinstance(owner, str):
            problems.append("owner is not a string")
        if problems:
            raise CorruptFileError(f"the lock object is not Hudi's StorageLockData: {'; '.join(problems)}",
                                   where=where)  # fmt: skip
        return cls(bool(expired), int(valid_until), owner or "")  # type: ignore[arg-type]


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def jackson_string(text: str) -> str:
    """A JSON string as Jackson writes it: quotes and backslashes escaped, the short escapes
    for ``\\b \\t \\n \\f \\r``, other control characters as ``\\u00XX`` (upper-case hex), and
    everything else as is (UTF-8)."""
    out = ['"']
    for char in text:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif char < " ":
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
