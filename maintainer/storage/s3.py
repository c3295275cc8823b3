"""S3 requests made through boto3 rather than pyarrow, where pyarrow sends more.

Deletes: pyarrow's ``delete_file`` and ``delete_dir`` write an empty "folder" marker object for
the parent afterwards (``<parent>/``), one stray PUT per deleted file, an object Hudi never
wrote. A file is deleted with a HEAD (to say whether it was there) and a DELETE; a folder with
one LIST per 1,000 keys and one batch delete each. Reading a whole file: one GET; a file's two
ends (a Parquet file's magic and footer length): ranged GETs; no HEAD before either."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

from maintainer.errors import StorageError
from maintainer.storage.limits import read_at_most

S3_SCHEMES = ("s3://", "s3a://")
BATCH = 1000
"""Keys per DeleteObjects request (S3's limit)."""


class FileEnds(NamedTuple):
    """The first and last bytes of a file, and its size."""

    head: bytes
    tail: bytes
    size: int


def is_s3(uri: str) -> bool:
    return uri.startswith(S3_SCHEMES)


def bucket_and_key(full_path: str) -> tuple[str, str]:
    """``bucket/key`` (a pyarrow S3 path) as (bucket, key)."""
    bucket, _, key = full_path.lstrip("/").partition("/")
    return bucket, key


def s3_status(exc: Exception) -> tuple[int, str]:
    """(HTTP status, S3 error code) of a botocore error; (0, "") where there was no answer."""
    response = getattr(exc, "response", None) or {}
    status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    code = str(response.get("Error", {}).get("Code") or "")
    return status, code


def delete_object(options: Mapping[str, Any], full_path: str, uri: str) -> int | None:
    """Delete one object; its size (from the HEAD that tells whether it is there), None where
    there was none."""
    from botocore.exceptions import BotoCoreError, ClientError

    client = s3_client(options)
    bucket, key = bucket_and_key(full_path)
    try:
        head = client.head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if s3_status(exc)[0] == 404:
            return None
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    except BotoCoreError as exc:
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    try:
        client.delete_object(Bucket=bucket, Key=key)
    except (ClientError, BotoCoreError) as exc:
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    return int(head.get("ContentLength", 0))


def delete_prefix(options: Mapping[str, Any], full_path: str, uri: str) -> int:
    """Delete every object under the folder ``full_path`` (and its own marker, if any); the
    number of objects deleted."""
    from botocore.exceptions import BotoCoreError, ClientError

    client = s3_client(options)
    bucket, key = bucket_and_key(full_path)
    prefix = key.rstrip("/") + "/"
    deleted = 0
    try:
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            keys = [item["Key"] for item in page.get("Contents", [])]
            for start in range(0, len(keys), BATCH):
                deleted += _delete_batch(client, bucket, keys[start : start + BATCH], uri)
    except (ClientError, BotoCoreError) as exc:
        raise StorageError(f"cannot delete directory {uri}: {exc}") from exc
    return deleted


def existing_objects(options: Mapping[str, Any], full_paths: list[str]) -> set[str]:
    """Which of ``full_paths`` exist: one LIST per folder they are in (1,000 keys a page),
    not one HEAD per object."""
    from botocore.exceptions import BotoCoreError, ClientError

    client = s3_client(options)
    folders = sorted({full_path.rsplit("/", 1)[0] for full_path in full_paths})
    found: set[str] = set()
    for folder in folders:
        bucket, key = bucket_and_key(folder + "/")
        try:
            pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=key, Delimiter="/")
            found.update(f"{bucket}/{item['Key']}" for page in pages for item in page.get("Contents", []))
        except (ClientError, BotoCoreError) as exc:
            raise StorageError(f"cannot list s3://{folder}: {exc}") from exc
    return found


def delete_objects(options: Mapping[str, Any], full_paths: list[str]) -> dict[str, str]:
    """Delete objects through S3's batch API (DeleteObjects, up to 1,000 keys a request); the
    objects S3 refused, with why (an absent key counts as deleted, as S3 reports it)."""
    from botocore.exceptions import BotoCoreError, ClientError

    client = s3_client(options)
    by_bucket: dict[str, list[str]] = {}
    for full_path in full_paths:
        bucket, key = bucket_and_key(full_path)
        by_bucket.setdefault(bucket, []).append(key)
    refused: dict[str, str] = {}
    for bucket, keys in by_bucket.items():
        for start in range(0, len(keys), BATCH):
            chunk = keys[start : start + BATCH]
            try:
                answer = client.delete_objects(
                    Bucket=bucket, Delete={"Objects": [{"Key": key} for key in chunk], "Quiet": True}
                )
            except (ClientError, BotoCoreError) as exc:
                refused.update({f"{bucket}/{key}": str(exc) for key in chunk})
                continue
            for error in answer.get("Errors") or []:
                refused[f"{bucket}/{error.get('Key')}"] = f"{error.get('Code')} {error.get('Message')}"
    return refused


def _delete_batch(client: Any, bucket: str, keys: list[str], uri: str) -> int:
    answer = client.delete_objects(
        Bucket=bucket, Delete={"Objects": [{"Key": key} for key in keys], "Quiet": True}
    )
    errors = answer.get("Errors") or []
    if errors:
        first = errors[0]
        raise StorageError(
            f"cannot delete directory {uri}: {len(errors)} object(s) refused, e.g. "
            f"{first.get('Key')}: {first.get('Code')} {first.get('Message')}",
            hint="check that the credentials may delete objects under the table",
        )
    return len(keys)


# -- the boto3 client, from a profile's pyarrow S3FileSystem options ----------------------

_S3_IGNORED = frozenset(
    {
        # how pyarrow writes and retries, not where or as whom: boto3 has its own
        "allow_delayed_open",
        "background_writes",
        "default_metadata",
        "allow_bucket_creation",
        "allow_bucket_deletion",
        "check_directory_existence_before_creation",
        "retry_strategy",
        "load_frequency",
    }
)
_S3_REFUSED = frozenset({"role_arn", "session_name", "external_id"})
_TRUE = frozenset({"1", "true", "yes", "on"})


def option_flag(value: Any) -> bool:
    """A storage option given as text or a boolean."""
    return value.strip().lower() in _TRUE if isinstance(value, str) else bool(value)


def boto3_client_kwargs(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``boto3.client("s3", **kwargs)`` arguments, ``botocore.config.Config`` arguments) for
    pyarrow ``S3FileSystem`` options: the same endpoint, credentials, region, addressing,
    timeouts, proxy and CA file. Options only about how pyarrow writes are ignored; one boto3
    cannot honour the same way (``role_arn``), or one pyarrow does not know, is a
    StorageError."""
    kwargs: dict[str, Any] = {}
    config: dict[str, Any] = {}
    unknown = sorted(set(options) - _S3_IGNORED - _S3_REFUSED - _S3_MAPPED)
    refused = sorted(set(options) & _S3_REFUSED)
    if unknown or refused:
        names = ", ".join(unknown + refused)
        raise StorageError(
            f"storage option(s) {names} cannot be passed on to boto3 for conditional S3 writes",
            hint="maintainer's table lock writes through boto3; give credentials as access_key/"
            "secret_key/session_token or through the AWS default credential chain",
        )
    endpoint = options.get("endpoint_override")
    if endpoint:
        scheme = str(options.get("scheme") or "https")
        kwargs["endpoint_url"] = endpoint if "://" in str(endpoint) else f"{scheme}://{endpoint}"
    for source, target in (
        ("access_key", "aws_access_key_id"),
        ("secret_key", "aws_secret_access_key"),
        ("session_token", "aws_session_token"),
        ("region", "region_name"),
    ):
        if options.get(source):
            kwargs[target] = str(options[source])
    if options.get("tls_ca_file_path"):
        kwargs["verify"] = str(options["tls_ca_file_path"])
    virtual = option_flag(options.get("force_virtual_addressing", False)) or not endpoint
    config["s3"] = {"addressing_style": "virtual" if virtual else "path"}
    if option_flag(options.get("anonymous", False)):
        from botocore import UNSIGNED

        config["signature_version"] = UNSIGNED
    if options.get("connect_timeout") is not None:
        config["connect_timeout"] = float(options["connect_timeout"])
    if options.get("request_timeout") is not None:
        config["read_timeout"] = float(options["request_timeout"])
    proxy = options.get("proxy_options")
    if proxy:
        if isinstance(proxy, str):
            config["proxies"] = {"http": proxy, "https": proxy}
        else:
            scheme = proxy.get("scheme", "http")
            auth = f"{proxy['username']}:{proxy['password']}@" if proxy.get("username") else ""
            url = f"{scheme}://{auth}{proxy['host']}:{proxy['port']}"
            config["proxies"] = {"http": url, "https": url}
    return kwargs, config


_S3_MAPPED = frozenset(
    {
        "endpoint_override",
        "scheme",
        "access_key",
        "secret_key",
        "session_token",
        "region",
        "tls_ca_file_path",
        "force_virtual_addressing",
        "anonymous",
        "connect_timeout",
        "request_timeout",
        "proxy_options",
    }
)

_S3_CLIENTS: dict[str, Any] = {}
_S3_CLIENTS_LOCK = threading.Lock()


def s3_client(options: Mapping[str, Any]) -> Any:
    kwargs, config = boto3_client_kwargs(options)
    key = repr(sorted((k, repr(v)) for k, v in options.items()))
    with _S3_CLIENTS_LOCK:
        client = _S3_CLIENTS.get(key)
        if client is None:
            import boto3
            from botocore.config import Config

            client = boto3.session.Session().client("s3", config=Config(**config), **kwargs)
            _S3_CLIENTS[key] = client
    return client


@contextmanager
def _read_errors(uri: str) -> Iterator[None]:
    """botocore's errors of a read of ``uri`` as :class:`StorageError` (404: not found)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        if s3_status(exc)[0] == 404:
            raise StorageError(f"file not found: {uri}") from exc
        raise StorageError(f"cannot read {uri}: {exc}") from exc
    except BotoCoreError as exc:
        raise StorageError(f"cannot read {uri}: {exc}") from exc


def read_object_ends(options: Mapping[str, Any], full_path: str, uri: str, head: int, tail: int) -> FileEnds:
    """The first ``head`` and last ``tail`` bytes of an object and its size, in one ranged GET
    (a suffix range: its answer names the size) or two for an object larger than ``tail``,
    where pyarrow sends a HEAD and two GETs."""
    from botocore.exceptions import ClientError

    client = s3_client(options)
    bucket, key = bucket_and_key(full_path)
    with _read_errors(uri):
        try:
            answer = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=-{tail}")
        except ClientError as exc:
            if s3_status(exc)[0] == 416:  # an empty object has no last bytes
                return FileEnds(b"", b"", 0)
            raise
        last = answer["Body"].read()
        size = _object_size(answer, len(last))
        if size <= len(last) or head <= 0:
            return FileEnds(last[: max(0, head)], last, size)
        first = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{head - 1}")["Body"].read()
    return FileEnds(first, last, size)


def _object_size(answer: Mapping[str, Any], received: int) -> int:
    """The object's size from a ranged answer (``Content-Range: bytes a-b/size``; a whole
    object answered without one is its own size)."""
    content_range = str(answer.get("ContentRange") or "")
    total = content_range.rpartition("/")[2]
    return int(total) if total.isdigit() else received


def read_object(options: Mapping[str, Any], full_path: str, uri: str) -> bytes:
    """A whole object in one GET (pyarrow sends a HEAD first)."""
    bucket, key = bucket_and_key(full_path)
    with _read_errors(uri):
        data: bytes = s3_client(options).get_object(Bucket=bucket, Key=key)["Body"].read()
    return data


def read_object_within(options: Mapping[str, Any], full_path: str, uri: str, limit: int) -> bytes | None:
    """A whole object in one GET, or None when it is larger than ``limit`` bytes: its length
    is known from the answer's headers before the body is read, and at most ``limit + 1``
    bytes of the body are."""
    bucket, key = bucket_and_key(full_path)
    with _read_errors(uri):
        answer = s3_client(options).get_object(Bucket=bucket, Key=key)
        body = answer["Body"]
        try:
            size = answer.get("ContentLength")
            if size is not None and int(size) > limit:
                return None
            return read_at_most(body.read, limit, None if size is None else int(size))
        finally:
            body.close()
