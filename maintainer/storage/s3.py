"""Deletes on S3 through boto3 rather than pyarrow: pyarrow's ``delete_file`` and ``delete_dir``
write an empty "folder" marker object for the parent afterwards (``<parent>/``), one stray PUT
per deleted file, an object Hudi never wrote. A file is deleted with a HEAD (to say whether it
was there) and a DELETE; a folder with one LIST per 1,000 keys and one batch delete each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from maintainer.errors import StorageError
from maintainer.storage.conditional import s3_client

S3_SCHEMES = ("s3://", "s3a://")
BATCH = 1000
"""Keys per DeleteObjects request (S3's limit)."""


def is_s3(uri: str) -> bool:
    return uri.startswith(S3_SCHEMES)


def bucket_and_key(full_path: str) -> tuple[str, str]:
    """``bucket/key`` (a pyarrow S3 path) as (bucket, key)."""
    bucket, _, key = full_path.lstrip("/").partition("/")
    return bucket, key


def _status(exc: Exception) -> int:
    response = getattr(exc, "response", None) or {}
    return int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def delete_object(options: Mapping[str, Any], full_path: str, uri: str) -> bool:
    """Delete one object; False where there was none."""
    from botocore.exceptions import BotoCoreError, ClientError

    client = s3_client(options)
    bucket, key = bucket_and_key(full_path)
    try:
        client.head_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if _status(exc) == 404:
            return False
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    except BotoCoreError as exc:
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    try:
        client.delete_object(Bucket=bucket, Key=key)
    except (ClientError, BotoCoreError) as exc:
        raise StorageError(f"cannot delete {uri}: {exc}") from exc
    return True


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
