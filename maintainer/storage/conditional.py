"""Conditional object writes: create-if-absent and compare-and-replace, per storage scheme.

The storage layer under Hudi's storage-based lock (``maintainer.hudi.lock``) and under the
write-once instant files of :meth:`Storage.write_if_absent`. Three operations, on paths relative
to a :class:`~maintainer.storage.Storage`'s root:

* ``read_versioned(path, limit)`` -> :class:`Versioned` (bytes and an opaque version) or None;
  given ``limit``, an object larger than that is a :class:`StorageError`, told from its size
  before its bytes are read;
* ``create_if_absent(path, data)`` -> the new version; :class:`FileExistsInStorageError` when
  the object exists;
* ``replace_if_version(path, data, version)`` -> the new version;
  :class:`PreconditionFailedError` when the object is not at ``version`` any more (changed or
  gone).

A failure that leaves the outcome unknown or is worth retrying (S3 409 conditional-request
conflict, 429, 5xx, a timeout: what Hudi's clients call ``UNKNOWN_ERROR``) is a
:class:`StorageUnavailableError`; every other failure a :class:`StorageError`.

Per scheme (the facts are Hudi's ``S3StorageLockClient`` and ``GCSStorageLockClient``):

* **S3** (``s3://``, ``s3a://``), through boto3: ``PutObject`` with ``If-None-Match: *`` to
  create, with ``If-Match: <ETag>`` to replace; the version is the ETag. 412 is a precondition
  failure; a ``If-Match`` PUT on a missing object (404) is one too. The boto3 client is built
  from the same pyarrow ``S3FileSystem`` options a profile gives (:func:`boto3_client_kwargs`);
  an option that would send requests elsewhere or as someone else and that boto3 cannot take
  the same way (``role_arn``) is an error, never dropped.
* **GCS** (``gs://``), through google-cloud-storage (the ``maintainer[gcs]`` extra):
  ``ifGenerationMatch=0`` to create, ``ifGenerationMatch=<generation>`` to replace; the version
  is the generation.
* **Local disk**: create and replace write a temporary file beside the object, then rename it
  into place (a reader never sees half an object) while holding an exclusive ``fcntl`` lock of
  a guard file beside the object (``.<name>.guard``): create renames only where the object is
  absent, replace only where the object's version is still the expected one. Every writer is
  this code, so the guard makes check-and-rename atomic. The version is the SHA-256 of the
  content: two objects with the same bytes are the same lock state, so a compare on content
  loses nothing (S3's ETag of such a PUT is the MD5 of the content too).
* **HDFS**: not supported. pyarrow's HDFS client has no atomic create-if-absent: its
  ``move`` deletes an existing destination file and renames again, and its output streams
  overwrite; a check-then-write would let two writers both win. :class:`ConditionalStore` is
  refused there with :class:`ConditionalWriteUnsupportedError` (Hudi has no storage-based lock
  for HDFS either).

A server that ignores the conditional headers would let two lockers both win. The first lock
object created on an endpoint in this process is checked: the same create is sent again and
must be refused (412); the first take-over (``If-Match``) is checked likewise with a version
that cannot match. So an endpoint costs at most one extra request per kind of write per
process (``verify_refuses_create`` / ``verify_refuses_stale_replace``); one that accepts is a
:class:`StorageError` naming it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from maintainer.errors import (
    ConditionalWriteUnsupportedError,
    FileExistsInStorageError,
    PreconditionFailedError,
    StorageError,
    StorageUnavailableError,
)
from maintainer.storage import atomic
from maintainer.storage.limits import read_at_most
from maintainer.storage.s3 import boto3_client_kwargs, bucket_and_key, option_flag, s3_client, s3_status


class Storage(Protocol):
    """What a conditional store needs of a :class:`maintainer.storage.Storage` (named here
    structurally, so that the file system module, which uses this one, is not imported back)."""

    base_uri: str
    options: dict[str, Any]

    @property
    def is_local(self) -> bool: ...

    def full_path(self, path: str) -> str: ...

    def uri(self, path: str) -> str: ...


__all__ = [
    "ConditionalStore",
    "GcsConditionalStore",
    "LocalConditionalStore",
    "S3ConditionalStore",
    "Versioned",
    "boto3_client_kwargs",
    "conditional_store",
]


@dataclass(frozen=True, slots=True)
class Versioned:
    """An object's bytes and the version a conditional replace must name."""

    data: bytes
    version: str


_VERIFIED: set[tuple[str, str]] = set()
_VERIFIED_LOCK = threading.Lock()


class ConditionalStore(ABC):
    """Conditional operations on paths relative to one storage root."""

    endpoint: str = "local disk"
    """Names the server in messages (and keys the per-process verification)."""
    needs_verification = True
    impossible_version = "0"
    """A version no object can have (the stale-replace probe names it)."""

    @abstractmethod
    def read_versioned(self, path: str, limit: int | None = None) -> Versioned | None: ...

    @abstractmethod
    def create_if_absent(self, path: str, data: bytes) -> str: ...

    @abstractmethod
    def replace_if_version(self, path: str, data: bytes, version: str) -> str: ...

    @abstractmethod
    def uri(self, path: str) -> str: ...

    # -- the server honours the conditions ------------------------------------------------------
    def _verify_once(self, kind: str, probe: Callable[[], None]) -> None:
        if not self.needs_verification:
            return
        key = (self.endpoint, kind)
        with _VERIFIED_LOCK:
            if key in _VERIFIED:
                return
        probe()
        with _VERIFIED_LOCK:
            _VERIFIED.add(key)

    def verify_refuses_create(self, path: str, data: bytes) -> None:
        """Right after creating ``path`` with ``data``: the same create must be refused. (Sent
        once per endpoint and process; a server that accepts it rewrote the same bytes.)"""

        def probe() -> None:
            try:
                self.create_if_absent(path, data)
            except FileExistsInStorageError:
                return
            raise StorageError(
                f"this {self.endpoint} endpoint does not honour conditional writes (If-None-Match): "
                "maintainer cannot lock tables there",
                where=self.uri(path),
                hint="use a server that supports conditional PUTs (If-None-Match and If-Match)",
            )

        self._verify_once("create", probe)

    def verify_refuses_stale_replace(self, path: str, data: bytes) -> None:
        """Right after writing ``path`` with ``data``: a replace naming a version the object
        cannot have must be refused (once per endpoint and process)."""

        def probe() -> None:
            try:
                self.replace_if_version(path, data, self.impossible_version)
            except PreconditionFailedError:
                return
            raise StorageError(
                f"this {self.endpoint} endpoint does not honour conditional writes (If-Match): "
                "maintainer cannot lock tables there",
                where=self.uri(path),
                hint="use a server that supports conditional PUTs (If-None-Match and If-Match)",
            )

        self._verify_once("replace", probe)


def conditional_store(storage: Storage) -> ConditionalStore:
    """The conditional operations of ``storage``'s scheme (see the module docstring)."""
    if storage.is_local:
        return LocalConditionalStore(storage)
    scheme = storage.base_uri.partition("://")[0]
    if scheme in ("s3", "s3a"):
        return S3ConditionalStore(storage)
    if scheme in ("gs", "gcs"):
        return GcsConditionalStore(storage)
    raise ConditionalWriteUnsupportedError(
        f"conditional writes are not available on {scheme}:// storage",
        where=storage.base_uri,
        hint="maintainer's table lock (Hudi's storage-based lock) needs S3, GCS or local disk; "
        "on HDFS and Azure (abfs) pyarrow offers no atomic create-if-absent, so apply cannot "
        "lock the table there (plan, inspect and debug work)",
    )


# -- local disk ----------------------------------------------------------------------------------


def _too_large(uri: str, limit: int, size: int | None) -> StorageError:
    found = f"is {size:,} bytes, more than" if size is not None else "is more than"
    return StorageError(
        f"the object {found} the {limit:,} bytes maintainer reads of it",
        where=uri,
        hint="no writer of this object makes one this large: check who wrote it, then delete it",
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LocalConditionalStore(ConditionalStore):
    """Local disk: rename into place under an exclusive ``fcntl`` lock of a guard file."""

    endpoint = "local disk"
    needs_verification = False

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def uri(self, path: str) -> str:
        return self.storage.uri(path)

    def _full(self, path: str) -> str:
        return self.storage.full_path(path)

    @contextlib.contextmanager
    def _guarded(self, full: str) -> Iterator[None]:
        folder, name = os.path.split(full)
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, f".{name}.guard"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _scratch(self, full: str, data: bytes) -> str:
        folder = os.path.dirname(full)
        os.makedirs(folder, exist_ok=True)
        return atomic.write_temp(folder, data, full)

    def _read(self, path: str, limit: int | None) -> bytes | None:
        try:
            with open(self._full(path), "rb") as handle:
                if limit is None:
                    return handle.read()
                size = os.fstat(handle.fileno()).st_size
                if size > limit:
                    raise _too_large(self.uri(path), limit, size)
                data = read_at_most(handle.read, limit, size)
        except FileNotFoundError:
            return None
        if data is None:
            raise _too_large(self.uri(path), limit, None)
        return data

    def read_versioned(self, path: str, limit: int | None = None) -> Versioned | None:
        try:
            data = self._read(path, limit)
        except OSError as exc:
            raise StorageError(f"cannot read {self.uri(path)}: {exc}") from exc
        return None if data is None else Versioned(data, _sha256(data))

    def create_if_absent(self, path: str, data: bytes) -> str:
        full = self._full(path)
        try:
            scratch = self._scratch(full, data)
            try:
                with self._guarded(full):
                    if os.path.lexists(full):
                        raise FileExistsInStorageError(
                            f"refusing to overwrite {self.uri(path)}: it already exists"
                        )
                    os.rename(scratch, full)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(scratch)
        except OSError as exc:
            raise StorageError(f"cannot create {self.uri(path)}: {exc}") from exc
        return _sha256(data)

    def replace_if_version(self, path: str, data: bytes, version: str) -> str:
        full = self._full(path)
        try:
            scratch = self._scratch(full, data)
            try:
                with self._guarded(full):
                    current = self._read(path, None)
                    if current is None or _sha256(current) != version:
                        raise PreconditionFailedError(
                            f"{self.uri(path)} is no longer at the version read "
                            + ("(it is gone)" if current is None else "(it changed)")
                        )
                    os.rename(scratch, full)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(scratch)
        except OSError as exc:
            raise StorageError(f"cannot replace {self.uri(path)}: {exc}") from exc
        return _sha256(data)


# -- S3 -------------------------------------------------------------------------------------------


class S3ConditionalStore(ConditionalStore):
    """S3 through boto3: ``If-None-Match: *`` and ``If-Match: <ETag>`` PUTs."""

    impossible_version = '"00000000000000000000000000000000-0"'
    """A multipart ETag of zero parts: no object has it."""

    def __init__(self, storage: Storage, client: Any = None) -> None:
        self.storage = storage
        self.client = client if client is not None else s3_client(storage.options)
        endpoint = storage.options.get("endpoint_override")
        self.endpoint = f"S3 ({endpoint})" if endpoint else "S3"

    def uri(self, path: str) -> str:
        return self.storage.uri(path)

    def _location(self, path: str) -> tuple[str, str]:
        return bucket_and_key(self.storage.full_path(path))

    def _failure(self, exc: Exception, path: str, doing: str) -> StorageError:
        """A botocore ClientError (by status) or BotoCoreError (no answer: unknown outcome)."""
        status, code = s3_status(exc)
        if status == 0:
            return StorageUnavailableError(f"cannot {doing} {self.uri(path)}: {exc}")
        if status in (409, 429) or status >= 500 or code in ("SlowDown", "RequestTimeout"):
            return StorageUnavailableError(
                f"cannot {doing} {self.uri(path)} now: S3 answered {status} {code}",
                hint="a transient error (conflict, throttling, server error); retry",
            )
        return StorageError(f"cannot {doing} {self.uri(path)}: S3 answered {status} {code}")

    def read_versioned(self, path: str, limit: int | None = None) -> Versioned | None:
        from botocore.exceptions import BotoCoreError, ClientError

        bucket, key = self._location(path)
        try:
            response = self.client.get_object(Bucket=bucket, Key=key)
            data = _read_body(response, limit, self.uri(path))
        except ClientError as exc:
            status, code = s3_status(exc)
            if status == 404 or code in ("NoSuchKey", "404"):
                return None
            raise self._failure(exc, path, "read") from exc
        except BotoCoreError as exc:
            raise self._failure(exc, path, "read") from exc
        return Versioned(bytes(data), str(response["ETag"]))

    def _put(self, path: str, data: bytes, condition: dict[str, str], doing: str) -> str:
        from botocore.exceptions import BotoCoreError, ClientError

        bucket, key = self._location(path)
        try:
            response = self.client.put_object(Bucket=bucket, Key=key, Body=data, **condition)
        except ClientError as exc:
            status, code = s3_status(exc)
            if status == 412 or code == "PreconditionFailed":
                if "IfNoneMatch" in condition:
                    raise FileExistsInStorageError(
                        f"refusing to overwrite {self.uri(path)}: it already exists"
                    ) from exc
                raise PreconditionFailedError(f"{self.uri(path)} is no longer at the version read") from exc
            if "IfMatch" in condition and (status == 404 or code == "NoSuchKey"):
                raise PreconditionFailedError(f"{self.uri(path)} is gone") from exc
            raise self._failure(exc, path, doing) from exc
        except BotoCoreError as exc:
            raise self._failure(exc, path, doing) from exc
        return str(response["ETag"])

    def create_if_absent(self, path: str, data: bytes) -> str:
        return self._put(path, data, {"IfNoneMatch": "*"}, "create")

    def replace_if_version(self, path: str, data: bytes, version: str) -> str:
        return self._put(path, data, {"IfMatch": version}, "replace")


# -- GCS ------------------------------------------------------------------------------------------

_GCS_IGNORED = frozenset({"default_bucket_location", "default_metadata", "retry_time_limit",
                          "credential_token_expiration"})  # fmt: skip
_GCS_MAPPED = frozenset({"anonymous", "access_token", "scheme", "endpoint_override", "project_id"})


def _read_body(response: Mapping[str, Any], limit: int | None, uri: str) -> bytes:
    """The body of a GetObject answer, refused unread when its length is over ``limit``."""
    body = response["Body"]
    if limit is None:
        return bytes(body.read())
    try:
        size = response.get("ContentLength")
        if size is not None and int(size) > limit:
            raise _too_large(uri, limit, int(size))
        data = read_at_most(body.read, limit, None if size is None else int(size))
    finally:
        body.close()
    if data is None:
        raise _too_large(uri, limit, None)
    return data


def _gcs_client(options: Mapping[str, Any]) -> Any:
    """A google-cloud-storage client for pyarrow ``GcsFileSystem`` options."""
    try:
        from google.cloud import storage as gcs
    except ImportError as exc:
        raise StorageError(
            "conditional writes on gs:// need the google-cloud-storage package",
            hint="pip install 'maintainer[gcs]'",
        ) from exc
    unknown = sorted(set(options) - _GCS_IGNORED - _GCS_MAPPED)
    if unknown:
        raise StorageError(
            f"storage option(s) {', '.join(unknown)} cannot be passed on to google-cloud-storage "
            "for conditional GCS writes",
            hint="give credentials through access_token or Google's application default credentials",
        )
    kwargs: dict[str, Any] = {}
    if options.get("project_id"):
        kwargs["project"] = str(options["project_id"])
    endpoint = options.get("endpoint_override")
    if endpoint:
        scheme = str(options.get("scheme") or "https")
        url = endpoint if "://" in str(endpoint) else f"{scheme}://{endpoint}"
        kwargs["client_options"] = {"api_endpoint": url}
    if option_flag(options.get("anonymous", False)):
        from google.auth.credentials import AnonymousCredentials

        kwargs["credentials"] = AnonymousCredentials()
        kwargs.setdefault("project", "<none>")
    elif options.get("access_token"):
        from google.oauth2.credentials import Credentials

        kwargs["credentials"] = Credentials(str(options["access_token"]))
    return gcs.Client(**kwargs)


def _gcs_errors() -> tuple[type[Exception], ...]:
    from google.api_core.exceptions import GoogleAPIError
    from google.auth.exceptions import TransportError

    return (GoogleAPIError, TransportError, ConnectionError, TimeoutError)


def _gcs_code(exc: Exception) -> int | None:
    code = getattr(exc, "code", None)
    return int(code) if isinstance(code, int) else None


class GcsConditionalStore(ConditionalStore):
    """GCS through google-cloud-storage: ``ifGenerationMatch`` (0 to create)."""

    impossible_version = "1"
    """Generations are microsecond timestamps: no object has generation 1."""

    def __init__(
        self, storage: Storage, client: Any = None, errors: tuple[type[Exception], ...] | None = None
    ) -> None:
        self.storage = storage
        self.client = client if client is not None else _gcs_client(storage.options)
        self.errors = errors if errors is not None else _gcs_errors()
        """What a failed request raises (google.api_core's errors carry the HTTP ``code``)."""
        endpoint = storage.options.get("endpoint_override")
        self.endpoint = f"GCS ({endpoint})" if endpoint else "GCS"

    def uri(self, path: str) -> str:
        return self.storage.uri(path)

    def _blob(self, path: str) -> Any:
        bucket, key = bucket_and_key(self.storage.full_path(path))
        return self.client.bucket(bucket).blob(key)

    def _failure(self, exc: Exception, path: str, doing: str) -> StorageError:
        code = _gcs_code(exc)
        if code is None or code == 429 or code >= 500:
            return StorageUnavailableError(f"cannot {doing} {self.uri(path)} now: {exc}")
        return StorageError(f"cannot {doing} {self.uri(path)}: {exc}")

    def read_versioned(self, path: str, limit: int | None = None) -> Versioned | None:
        bucket, key = bucket_and_key(self.storage.full_path(path))
        for _ in range(3):
            try:
                blob = self.client.bucket(bucket).get_blob(key)
                if blob is None:
                    return None
                if limit is not None and int(blob.size or 0) > limit:
                    raise _too_large(self.uri(path), limit, int(blob.size))
                generation = int(blob.generation)
                data = blob.download_as_bytes(if_generation_match=generation)
            except self.errors as exc:
                code = _gcs_code(exc)
                if code in (404, 412):
                    continue  # replaced or deleted between the metadata and the read: again
                raise self._failure(exc, path, "read") from exc
            return Versioned(bytes(data), str(generation))
        raise StorageUnavailableError(f"cannot read {self.uri(path)}: it keeps changing")

    def _upload(self, path: str, data: bytes, generation: int, doing: str) -> str:
        blob = self._blob(path)
        try:
            blob.upload_from_string(data, if_generation_match=generation)
        except self.errors as exc:
            if _gcs_code(exc) == 412:
                if generation == 0:
                    raise FileExistsInStorageError(
                        f"refusing to overwrite {self.uri(path)}: it already exists"
                    ) from exc
                raise PreconditionFailedError(f"{self.uri(path)} is no longer at the version read") from exc
            raise self._failure(exc, path, doing) from exc
        return str(blob.generation)

    def create_if_absent(self, path: str, data: bytes) -> str:
        return self._upload(path, data, 0, "create")

    def replace_if_version(self, path: str, data: bytes, version: str) -> str:
        try:
            generation = int(version)
        except ValueError:
            raise PreconditionFailedError(f"{self.uri(path)} is no longer at the version read") from None
        if generation <= 0:
            raise PreconditionFailedError(f"{self.uri(path)} is no longer at the version read")
        return self._upload(path, data, generation, "replace")
