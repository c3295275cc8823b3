"""The state backend: where apply keeps the manifest it last applied, table by table, and the
run history, so the next plan compares the project with what is in effect.

Its root is ``state:`` of the profile target, else of ``maintainer_project.yml``, else the
project's ``target_path``: a local folder or an object-store prefix (``s3://bucket/prefix``,
``gs://...``, read and written with the target's ``storage_options``). Under the root:

* ``last_applied/manifest.json``: one JSON object with ``tables`` by name (each the table's
  entry of the applied plan's ``manifest.json``: ``spec``, ``sources``, ``checksum``, plus
  ``applied``: the plan id, when and in which run) and ``applied`` (the newest apply). The
  path and shape ``target/last_applied/`` had before the backend existed, so a folder kept by an
  older maintainer is read as it is (with its ``applied.json``), and ``--state DIR`` takes it.
* ``runs/<run id>/run_results.json``: each apply's run_results.json, as written to the target
  folder; ``runs/<run id>/tables.json``: per table, its nodes' statuses, the drift count and
  the effects summed (``files_deleted``, ``bytes_deleted``, ``slices_compacted``; a list, such as
  ``rollbacks``, counted). The run id starts with the time the apply finished, so runs list in
  order.

**One manifest object, merged under a conditional write.** Plan reads the state in one request
(one object per table would cost a fleet of thousands of tables as many reads, or a listing).
An update reads the object with its version (S3 ETag, GCS generation, local SHA-256; see
:mod:`maintainer.storage.conditional`), merges table by table (each table of this apply replaces
its entry, unless that entry comes from an apply that finished later; every other table is
kept), and writes only if the object is still at the version read (creates it only if still
absent). When another apply wrote in between, the write is refused; the update reads again and
merges again, up to :data:`STATE_WRITE_ATTEMPTS` times, then fails with
:class:`~maintainer.errors.StateConflictError` naming the object. So two applies, partial or
racing, never drop each other's tables.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from maintainer.errors import (
    FileExistsInStorageError,
    PreconditionFailedError,
    StateConflictError,
    StorageError,
    StorageUnavailableError,
)
from maintainer.runner.results import NodeResult, NodeRunStatus
from maintainer.storage import ConditionalStore, Storage, conditional_store

MANIFEST_PATH = "last_applied/manifest.json"
LEGACY_APPLIED_PATH = "last_applied/applied.json"
"""Which plan an older maintainer applied last (beside its manifest.json); read, never written."""
RUNS_DIR = "runs"
RUN_RESULTS_FILE = "run_results.json"
RUN_TABLES_FILE = "tables.json"
STATE_WRITE_ATTEMPTS = 8
RETRY_BASE_S = 0.05
MAX_STATE_BYTES = 64 * 1024 * 1024
_HINT = (
    "it is written by maintainer apply: delete it to start the state again "
    "(the next plan then compares with nothing)"
)


@dataclass(frozen=True, slots=True)
class Applied:
    """One apply, as the state records it for each table it kept."""

    plan_id: str
    applied_at: str
    """UTC, ISO-8601 with milliseconds and Z (sorts as text)."""
    run_id: str

    def to_json(self) -> dict[str, str]:
        return {"plan_id": self.plan_id, "applied_at": self.applied_at, "run_id": self.run_id}


@dataclass(frozen=True, slots=True)
class StateUpdate:
    """What an update wrote: the object, how many writes it took and the tables it kept."""

    uri: str
    attempts: int
    tables: tuple[str, ...]


def run_id(finished_at: str, invocation_id: str) -> str:
    """``<finished_at, digits only>Z-<invocation id>``: unique, and in time order as text."""
    digits = "".join(ch for ch in finished_at if ch.isdigit())
    return f"{digits}Z-{invocation_id}"


def _applied_at(entry: Any) -> str:
    applied = entry.get("applied") if isinstance(entry, Mapping) else None
    when = applied.get("applied_at") if isinstance(applied, Mapping) else None
    return when if isinstance(when, str) else ""


def merge_state(
    kept: Mapping[str, Any] | None,
    tables: Mapping[str, Mapping[str, Any]],
    applied: Applied,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``kept`` (the state read, or None) with ``tables`` of this apply merged table by table:
    each replaces its entry unless that entry is from an apply that finished later."""
    kept = kept or {}
    merged = dict(kept["tables"]) if isinstance(kept.get("tables"), Mapping) else {}
    for name, entry in tables.items():
        if _applied_at(merged.get(name)) > applied.applied_at:
            continue  # a later apply already kept this table: it stays
        merged[name] = {**entry, "applied": applied.to_json()}
    newest = applied.applied_at >= _applied_at(kept)
    return {
        "metadata": dict(metadata or {}) if newest else kept.get("metadata", dict(metadata or {})),
        "tables": dict(sorted(merged.items())),
        "applied": applied.to_json() if newest else kept["applied"],
    }


def table_figures(nodes: Sequence[NodeResult]) -> dict[str, dict[str, Any]]:
    """Per table: its nodes' statuses, how many approved items were skipped as drift, and the
    effects summed (numbers added, lists counted)."""
    figures: dict[str, dict[str, Any]] = {}
    for node in nodes:
        table, _, service = node.id.partition(".")
        entry = figures.setdefault(table, {"nodes": {}, "drift": 0, "effects": {}})
        entry["nodes"][service] = node.status.value
        entry["drift"] += len(node.drift)
        for key, value in node.effects.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, (int, float)):
                entry["effects"][key] = entry["effects"].get(key, 0) + value
            elif isinstance(value, (list, tuple)):
                entry["effects"][key] = entry["effects"].get(key, 0) + len(value)
    return dict(sorted(figures.items()))


def failed_tables(nodes: Sequence[NodeResult]) -> set[str]:
    """Tables with a node that failed, or that an interrupt cancelled: their last applied entry
    stays as it was."""
    unfinished = (NodeRunStatus.ERROR, NodeRunStatus.CANCELLED)
    return {node.id.partition(".")[0] for node in nodes if node.status in unfinished}


def _decode(data: bytes, uri: str) -> dict[str, Any]:
    if len(data) > MAX_STATE_BYTES:
        raise StorageError(f"{uri} is larger than {MAX_STATE_BYTES} bytes", where=uri, hint=_HINT)
    try:
        decoded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StorageError(f"the state {uri} is not valid JSON: {exc}", where=uri, hint=_HINT) from None
    if not isinstance(decoded, dict) or not isinstance(decoded.get("tables", {}), dict):
        raise StorageError(f"the state {uri} is not a maintainer manifest (no 'tables' mapping)", where=uri,
                           hint=_HINT)  # fmt: skip
    return decoded


def _encode(data: Mapping[str, Any]) -> bytes:
    return (json.dumps(data, sort_keys=True) + "\n").encode("utf-8")


class StateBackend:
    """The state at one root (a :class:`Storage`): read by plan, updated by apply."""

    def __init__(
        self,
        storage: Storage,
        store: ConditionalStore | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.storage = storage
        self._store = store
        self._sleep = sleep

    @classmethod
    def at(cls, location: str, storage_options: Mapping[str, Any] | None = None) -> StateBackend:
        """The backend rooted at ``location`` (a folder or an s3://, gs:// prefix)."""
        return cls(Storage(location, storage_options if "://" in location else None))

    @property
    def store(self) -> ConditionalStore:
        if self._store is None:
            self._store = conditional_store(self.storage)
        return self._store

    def where(self, path: str) -> str:
        """``path`` under the root as a user names it (a plain path on local disk)."""
        return self.storage.full_path(path) if self.storage.is_local else self.storage.uri(path)

    @property
    def manifest_uri(self) -> str:
        return self.where(MANIFEST_PATH)

    def read_manifest(self) -> dict[str, Any] | None:
        """The last applied state, or None when nothing was applied yet. A state kept by an
        older maintainer gets its ``applied`` from the ``applied.json`` beside it."""
        found = self.store.read_versioned(MANIFEST_PATH)
        if found is None:
            return None
        state = _decode(found.data, self.manifest_uri)
        if "applied" not in state:
            legacy = self._legacy_applied()
            if legacy:
                state["applied"] = legacy
        return state

    def _legacy_applied(self) -> dict[str, Any] | None:
        try:
            found = self.store.read_versioned(LEGACY_APPLIED_PATH)
            data = json.loads(found.data.decode("utf-8")) if found else None
        except (StorageError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def keep_applied(
        self,
        tables: Mapping[str, Mapping[str, Any]],
        applied: Applied,
        metadata: Mapping[str, Any] | None = None,
    ) -> StateUpdate:
        """Merge ``tables`` (name -> the applied plan's manifest entry) into the state."""
        uri = self.manifest_uri
        refused: StorageError | None = None
        for attempt in range(1, STATE_WRITE_ATTEMPTS + 1):
            try:
                self._write_merged(tables, applied, metadata)
            except (FileExistsInStorageError, PreconditionFailedError, StorageUnavailableError) as exc:
                refused = exc
                if attempt < STATE_WRITE_ATTEMPTS:  # another apply wrote in between: read and merge again
                    self._sleep(RETRY_BASE_S * attempt * (1 + random.random()))
                continue
            return StateUpdate(uri, attempt, tuple(sorted(tables)))
        raise StateConflictError(
            f"the state {uri} kept changing under this apply: {STATE_WRITE_ATTEMPTS} conditional "
            f"writes, each merged again from a fresh read, were refused (the last: {refused})",
            where=uri,
            hint="other applies are updating the same state at the same time: run them one at a "
            "time (one concurrency group), or apply again to record this one",
        )

    def _write_merged(
        self, tables: Mapping[str, Mapping[str, Any]], applied: Applied, metadata: Mapping[str, Any] | None
    ) -> None:
        """One read, merge and conditional write; a server that ignores the condition is caught
        once per endpoint and process (:mod:`maintainer.storage.conditional`)."""
        found = self.store.read_versioned(MANIFEST_PATH)
        kept = _decode(found.data, self.manifest_uri) if found else None
        data = _encode(merge_state(kept, tables, applied, metadata))
        if found is None:
            self.store.create_if_absent(MANIFEST_PATH, data)
            self.store.verify_refuses_create(MANIFEST_PATH, data)
        else:
            self.store.replace_if_version(MANIFEST_PATH, data, found.version)
            self.store.verify_refuses_stale_replace(MANIFEST_PATH, data)

    def record_run(self, run: str, run_results: bytes, figures: Mapping[str, Any]) -> str:
        """``runs/<run>/run_results.json`` and ``tables.json`` (each written once); their folder."""
        folder = f"{RUNS_DIR}/{run}"
        self.store.create_if_absent(f"{folder}/{RUN_RESULTS_FILE}", run_results)
        self.store.create_if_absent(f"{folder}/{RUN_TABLES_FILE}", _encode(figures))
        return self.where(folder)
