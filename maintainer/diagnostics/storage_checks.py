"""Each table's storage: reachable, a Hudi table of a supported version, its timeline readable,
and writable under the table only. The write check puts one small probe object inside the
table's ``.hoodie`` folder, reads it back and deletes it: nothing Hudi reads, nothing left."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from typing import Any

from maintainer.diagnostics.checks import CheckResult, attempt, failed, passed, skipped
from maintainer.errors import StorageError
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.storage import Storage

PROPERTIES = ".hoodie/hoodie.properties"
PROBE_PREFIX = ".hoodie/.maintainer-debug-"


def check_table(name: str, path: str, storage_options: Mapping[str, Any]) -> list[CheckResult]:
    """The checks of one table, in order; a check whose premise failed is skipped."""
    group = f"table {name}"
    try:
        storage = Storage(path, storage_options)
        found = storage.exists(PROPERTIES)
    except StorageError as error:
        return [failed(group, "storage", f"{path}: {error.message}", error.hint), *_skip_rest(group)]
    if not found:
        nothing_there = storage.is_local and not os.path.isdir(storage.base_uri)
        return [
            passed(group, "storage", f"{storage.base_uri} is reachable"),
            failed(
                group,
                "Hudi table",
                f"{storage.base_uri} does not exist"
                if nothing_there
                else f"no {PROPERTIES} under {storage.base_uri}",
                "check the table's path in its manifest (and the target's vars); maintainer "
                "maintains tables Hudi has written, it does not create them",
            ),
            *_skip_rest(group)[1:],
        ]
    results = [passed(group, "storage", f"{storage.base_uri} is reachable")]
    configs: list[TableConfig] = []

    def read_config() -> str:
        config = load_config(storage)
        configs.append(config)
        return f"{config.table_type.value} table {config.name!r}, table version {config.version}"

    results.append(attempt(group, "Hudi table", read_config))
    if not configs:
        return [*results, *_skip_rest(group)[1:]]
    results.append(attempt(group, "timeline", lambda: _describe_timeline(storage, configs[0])))
    results.append(attempt(group, "writable", lambda: _probe_write(storage)))
    return results


def _skip_rest(group: str) -> list[CheckResult]:
    return [
        skipped(group, "Hudi table", "storage not reachable"),
        skipped(group, "timeline", "not a readable Hudi table"),
        skipped(group, "writable", "not a readable Hudi table"),
    ]


def _describe_timeline(storage: Storage, config: TableConfig) -> str:
    timeline = load_timeline(storage, config)
    pending = len(timeline.pending())
    return f"{len(timeline.completed())} completed instant(s), {pending} pending"


def _probe_write(storage: Storage) -> str:
    """Write, read back and delete a probe inside ``.hoodie``; locally, refuse first when
    ``.hoodie`` resolves outside the table (a link would send writes elsewhere)."""
    _refuse_linked_hoodie(storage)
    probe = f"{PROBE_PREFIX}{uuid.uuid4().hex}"
    payload = b"maintainer debug: write check; safe to delete\n"
    storage.write_bytes(probe, payload)
    try:
        if storage.read_bytes(probe) != payload:
            raise StorageError(
                "a probe object read back differently from what was written",
                where=storage.uri(probe),
                hint="check the storage's consistency settings (and any proxy in between)",
            )
    finally:
        storage.delete(probe)
    if storage.exists(probe):
        raise StorageError(
            "a probe object is still there after its delete",
            where=storage.uri(probe),
            hint="check that the credentials may delete objects under the table",
        )
    return f"wrote, read back and deleted {storage.uri(probe)}"


def _refuse_linked_hoodie(storage: Storage) -> None:
    if not storage.is_local:
        return
    root = os.path.realpath(storage.base_uri)
    hoodie = os.path.realpath(storage.full_path(".hoodie"))
    if not hoodie.startswith(root.rstrip(os.sep) + os.sep):
        raise StorageError(
            f".hoodie resolves to {hoodie}, outside the table at {root}",
            where=storage.uri(".hoodie"),
            hint="maintainer writes only inside the table's own folders; replace the link with "
            "the folder itself",
        )
