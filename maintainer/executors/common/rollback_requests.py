"""The paths of rollback payloads, as Hudi records them, and requests deleting files.

Paths are absolute: files to delete without a scheme for local tables (``/abs/path``), log
files with it (``file:/abs/path``).
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.payloads import RollbackRequest

LOCAL_SCHEME = "file:"


def absolute_uri(table_uri: str, path: str) -> str:
    """The absolute URI of a path relative to the table (``file:/...`` for local tables)."""
    return f"{table_uri.rstrip('/')}/{path}" if path else table_uri


def absolute_path(table_uri: str, path: str) -> str:
    """The absolute path Hudi records for deleted files (no ``file:`` scheme locally)."""
    uri = absolute_uri(table_uri, path)
    return uri[len(LOCAL_SCHEME) :] if uri.startswith(LOCAL_SCHEME + "/") else uri


def relative_path(table_uri: str, absolute: str) -> str | None:
    """The table-relative path of an absolute path or URI from a rollback payload (None: outside)."""
    root = absolute_path(table_uri, "").rstrip("/") + "/"
    plain = absolute[len(LOCAL_SCHEME) :] if absolute.startswith(LOCAL_SCHEME + "/") else absolute
    return plain[len(root) :] if plain.startswith(root) else None


def _delete_request(table_uri: str, partition: str, paths: Iterable[str]) -> RollbackRequest:
    return RollbackRequest(
        partition_path=partition,
        file_id="",
        latest_base_instant="",
        files_to_be_deleted=tuple(absolute_path(table_uri, p) for p in sorted(paths)),
        log_blocks_to_be_deleted={},
    )


def _file_id_of(name: str) -> str:
    base = BaseFileName.parse(name)
    if base is not None:
        return base.file_id
    log = LogFileName.parse(name)
    return log.file_id if log is not None else name


def grouped_deletes(table_uri: str, paths: Iterable[tuple[str, str]]) -> list[RollbackRequest]:
    """Requests deleting ``(partition, table-relative path)`` files: one per (partition, file
    group), as Hudi merges them."""
    groups: dict[tuple[str, str], list[str]] = {}
    for partition, path in paths:
        groups.setdefault((partition, _file_id_of(path.rsplit("/", 1)[-1])), []).append(path)
    return [_delete_request(table_uri, partition, group) for (partition, _), group in sorted(groups.items())]
