"""Finding the Hudi tables under a prefix (``maintainer discover``): a folder is a table when it
holds ``.hoodie/hoodie.properties``; discovery never looks inside a table (its partitions, its
metadata table), skips hidden folders (``.x``, ``_x``: Spark's ``_temporary``, checkpoints) and
stops at a depth and a folder count, saying so."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maintainer.errors import MaintainerError, StorageError
from maintainer.hudi.config.java_properties import PROPERTIES_FILE
from maintainer.hudi.table.snapshot import load_config
from maintainer.storage import Storage

MAX_DEPTH = 8
MAX_FOLDERS = 50_000
LISTING_THREADS = 8


@dataclass(frozen=True, slots=True)
class FoundTable:
    relative: str
    """The table's folder below the prefix ("" when the prefix is the table)."""
    uri: str
    """The table's base path as a manifest's ``path:`` names it."""
    name: str
    """``hoodie.table.name`` ("" when hoodie.properties cannot be read)."""
    table_type: str
    version: int
    problem: str | None = None
    """Why its hoodie.properties could not be read (the table is listed all the same)."""


@dataclass(frozen=True, slots=True)
class Discovery:
    prefix: str
    tables: tuple[FoundTable, ...]
    folders: int
    """Folders listed."""
    truncated: str | None
    """Why the walk stopped before the end (depth or folder limit), None when complete."""


def _is_hidden(name: str) -> bool:
    return name.startswith((".", "_"))


def _location(storage: Storage, relative: str) -> str:
    return storage.full_path(relative) if storage.is_local else storage.uri(relative)


def _found(storage: Storage, relative: str) -> FoundTable:
    table = storage.child(relative) if relative else storage
    uri = _location(storage, relative)
    try:
        config = load_config(table)
    except (MaintainerError, OSError) as exc:
        return FoundTable(relative, uri, "", "unknown", 0, problem=str(exc))
    return FoundTable(relative, uri, config.name, config.table_type.value, config.version)


def _has_properties(storage: Storage, relative: str) -> bool:
    path = f"{relative}/{PROPERTIES_FILE}" if relative else PROPERTIES_FILE
    return storage.exists(path)


def enclosing_table(prefix: str, storage_options: Mapping[str, Any]) -> str | None:
    """The Hudi table whose folder holds ``prefix`` (below its base path), if any."""
    storage = Storage(prefix, dict(storage_options))
    root = storage.full_path("") if storage.is_local else storage.uri("")
    parts = root.rstrip("/").split("/")
    floor = 3 if "://" in root else 1  # never above the bucket (scheme://bucket) or /
    for cut in range(len(parts) - 1, floor, -1):
        parent = "/".join(parts[:cut])
        probe = Storage(parent, dict(storage_options))
        try:
            if _has_properties(probe, ""):
                return parent
        except MaintainerError:
            return None
    return None


def discover(
    prefix: str,
    storage_options: Mapping[str, Any],
    max_depth: int = MAX_DEPTH,
    max_folders: int = MAX_FOLDERS,
) -> Discovery:
    """The Hudi tables under ``prefix``, breadth first, sorted by folder. A prefix inside a
    table's folder is refused (a MaintainerError naming the table)."""
    storage = Storage(prefix, dict(storage_options))
    if _has_properties(storage, ""):
        return Discovery(prefix, (_found(storage, ""),), 1, None)
    if not storage.exists(""):
        raise MaintainerError(
            f"{prefix} does not exist (or holds nothing)",
            where=prefix,
            hint="check the path, or an object store's storage options (--storage-option, --project-dir)",
        )
    outer = enclosing_table(prefix, storage_options)
    if outer is not None:
        raise MaintainerError(
            f"{prefix} is inside the Hudi table at {outer}: discovery never looks inside a table "
            "(its partitions are not tables)",
            where=prefix,
            hint=f"discover {outer} itself, or a folder above it",
        )
    return _walk(storage, prefix, max_depth, max_folders)


def _walk(storage: Storage, prefix: str, max_depth: int, max_folders: int) -> Discovery:
    tables: list[FoundTable] = []
    level, folders, truncated = [""], 0, None
    with ThreadPoolExecutor(max_workers=LISTING_THREADS) as pool:
        for depth in range(max_depth + 1):
            if not level:
                break
            if folders + len(level) > max_folders:
                truncated = f"stopped after {folders} folders (--max-folders {max_folders})"
                break
            folders += len(level)
            listed = list(pool.map(lambda relative: _children(storage, relative), level))
            level = []
            for children in listed:
                for child, is_table in children:
                    if is_table:
                        tables.append(_found(storage, child))
                    elif depth < max_depth:
                        level.append(child)
                    else:
                        truncated = f"folders deeper than {max_depth} levels were not listed (--max-depth)"
    return Discovery(prefix, tuple(sorted(tables, key=lambda t: t.relative)), folders, truncated)


def _children(storage: Storage, relative: str) -> list[tuple[str, bool]]:
    """(sub-folder, is a table) of one folder; hidden folders are left out."""
    try:
        entries = storage.list_dir(relative)
    except MaintainerError as exc:
        raise StorageError(
            f"cannot list {_location(storage, relative)}: {exc}",
            where=_location(storage, relative),
            hint="check the path and the storage options (--storage-option, --project-dir)",
        ) from exc
    result = []
    for entry in entries:
        if not entry.is_dir or _is_hidden(entry.name):
            continue
        child = f"{relative}/{entry.name}" if relative else entry.name
        result.append((child, _has_properties(storage, child)))
    return result


def location_key(path: str, storage_options: Mapping[str, Any]) -> str:
    """A table location compared by what it points at: local paths resolved, ``s3a://`` as
    ``s3://``, no trailing slash."""
    storage = Storage(path, dict(storage_options))
    if storage.is_local:
        return str(Path(storage.full_path("")).resolve())
    return re.sub(r"^s3[an]://", "s3://", storage.uri("").rstrip("/"))


def covering_table(
    found: FoundTable, manifest_tables: Mapping[str, str], storage_options: Mapping[str, Any]
) -> str | None:
    """The manifest table (name -> path) at the found table's location, if any."""
    target = location_key(found.uri, storage_options)
    for name, path in manifest_tables.items():
        if location_key(path, storage_options) == target:
            return name
    return None


def uncovered(
    prefixes: Iterable[str], manifest_tables: Mapping[str, str], storage_options: Mapping[str, Any]
) -> tuple[FoundTable, ...]:
    """The tables under ``prefixes`` that no manifest table covers."""
    result = []
    for prefix in prefixes:
        for table in discover(prefix, storage_options).tables:
            if covering_table(table, manifest_tables, storage_options) is None:
                result.append(table)
    return tuple(result)
