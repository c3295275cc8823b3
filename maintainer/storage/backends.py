"""The pyarrow file system of each backend (local disk, S3, GCS, HDFS, ADLS Gen2), built from a
URI and the storage options; the Storage interface (:mod:`.fs`) sits on top of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.fs as pafs

from maintainer.errors import StorageError

FOLDER_FILE_SYSTEMS = frozenset({"local", "hdfs"})
"""pyarrow file systems (``type_name``) with real folders; the others are object stores."""


def _hadoop_fs(uri: str, options: Mapping[str, Any]) -> tuple[pafs.FileSystem, str]:
    parsed = urlsplit(uri)
    filesystem = pafs.HadoopFileSystem(parsed.hostname or "default", parsed.port or 8020, **options)
    return filesystem, parsed.path


def _azure_fs(uri: str, options: Mapping[str, Any]) -> tuple[pafs.FileSystem, str]:
    """ADLS Gen2 as Hadoop (and Hudi) name it, ``abfs[s]://<container>@<account>.dfs.core.windows.net
    /<path>`` (the account from the host unless ``account_name`` is given), or
    ``abfs[s]://<container>/<path>`` with ``account_name`` in the options."""
    parsed = urlsplit(uri)
    container, at, host = parsed.netloc.partition("@")
    account = options.get("account_name") or (host.split(".", 1)[0] if at else None)
    if not account:
        raise ValueError(f"no storage account in {uri}: give account_name in the storage options")
    filesystem = pafs.AzureFileSystem(**{**options, "account_name": account})
    return filesystem, f"{container}{parsed.path}"


CONDITIONAL_SCHEMES = frozenset({"s3", "s3a", "gs", "gcs"})
"""Object stores with conditional writes (``maintainer.storage.conditional``)."""

S3_DEFAULTS: dict[str, Any] = {"allow_delayed_open": True}
"""A file smaller than one part goes up in a single PUT (pyarrow otherwise opens a multipart
upload for every file: three requests where one does)."""


def remote_filesystem(uri: str, options: Mapping[str, Any]) -> tuple[pafs.FileSystem, str]:
    """The pyarrow file system of ``uri`` built with the storage options (s3, gs, hdfs, abfs
    take them: pyarrow's ``S3FileSystem``, ``GcsFileSystem``, ``HadoopFileSystem``,
    ``AzureFileSystem`` option names);
    options given for another scheme are an error, never silently dropped."""
    scheme, _, rest = uri.partition("://")
    try:
        if scheme in ("s3", "s3a"):
            return pafs.S3FileSystem(**{**S3_DEFAULTS, **options}), rest
        if scheme in ("gs", "gcs") and options:
            return pafs.GcsFileSystem(**options), rest
        if scheme == "hdfs" and options:
            return _hadoop_fs(uri, options)
        if scheme in ("abfs", "abfss") and options:
            return _azure_fs(uri, options)
        if options:
            raise ValueError(f"storage options are not taken for {scheme}:// (only s3, gs, hdfs and abfs)")
        filesystem, root = pafs.FileSystem.from_uri(uri)
        return filesystem, str(root)
    except (pa.ArrowException, ValueError, OSError, TypeError) as exc:
        raise StorageError(
            f"cannot open storage for {uri}: {exc}",
            hint="check the URI scheme and the storage options of the profile target",
        ) from exc
