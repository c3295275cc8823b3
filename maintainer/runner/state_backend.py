"""The state backend: where apply keeps the manifest it last applied, table by table, and the
run history, so the next plan compares the project with what is in effect.

Its root is ``state:`` of the profile target, else of ``maintainer_project.yml``, else the
project's ``target_path``: a local folder or an object-store prefix (``s3://bucket/prefix``,
``gs://...``, read and written with the target's ``storage_options``). Under the root:

* ``last_applied/manifest.json``: one JSON object with ``tables`` by name (each the table's
  entry of the applied plan's ``manifest.json``: ``spec``, ``sources``, ``checksum``, plus
  ``applied``: the plan id, when and in which run) and ``applied`` (the newest apply). The
  path ``target/last_applied/`` had before the backend existed, so a folder kept by an older
  maintainer (a compiled manifest.json and its ``applied.json``) is read, each of its tables as
  kept by that last apply, and ``--state DIR`` takes it. The file is an
  :class:`~maintainer.graph.manifest.AppliedState`, read strictly: a field missing, unknown or of
  the wrong type is a :class:`~maintainer.errors.StorageError` naming it.
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
from maintainer.graph.manifest import (
    Applied,
    AppliedState,
    AppliedTable,
    Baseline,
    ManifestMetadata,
    ManifestTable,
    dump_record,
    legacy_state,
    parse_baseline,
    parse_legacy_applied,
)
from maintainer.runner.results import NodeResult, NodeRunStatus
from maintainer.secrets import redact_tree
from maintainer.storage import ConditionalStore, Storage, conditional_store

MANIFEST_PATH = "last_applied/manifest.json"
LEGACY_APPLIED_PATH = "last_applied/applied.json"
"""Which plan an older maintainer applied last (beside its manifest.json); read, never written."""
RUNS_DIR = "runs"
RUN_RESULTS_FILE = "run_results.json"
RUN_TABLES_FILE = "tables.json"
HEALTH_PATH = "history/health.json"
"""Per table, the health figures before and after each apply (``maintainer status --history``):
one object, merged under a conditional write like the manifest, the newest
:data:`HEALTH_POINTS` applies kept per table."""
HEALTH_POINTS = 200
STATE_WRITE_ATTEMPTS = 12
RETRY_BASE_S = 0.05
RETRY_CAP_S = 1.0
"""Backoff between attempts: doubling from RETRY_BASE_S up to RETRY_CAP_S, jittered (about 8 s in
all: a busy object store answering 500s to racing conditional writes gets time to settle)."""
MAX_STATE_BYTES = 64 * 1024 * 1024
_HINT = (
    "it is written by maintainer apply: delete it to start the state again "
    "(the next plan then compares with nothing)"
)


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


def merge_state(
    kept: AppliedState | None,
    tables: Mapping[str, ManifestTable],
    applied: Applied,
    metadata: ManifestMetadata,
) -> AppliedState:
    """``kept`` (the state read, or None) with ``tables`` of this apply merged table by table:
    each replaces its entry unless that entry is from an apply that finished later."""
    merged = dict(kept.tables) if kept else {}
    for name, table in tables.items():
        if name in merged and merged[name].applied.applied_at > applied.applied_at:
            continue  # a later apply already kept this table: it stays
        merged[name] = AppliedTable.of(table, applied)
    if kept is not None and kept.applied.applied_at > applied.applied_at:
        return AppliedState(kept.metadata, dict(sorted(merged.items())), kept.applied)
    return AppliedState(metadata, dict(sorted(merged.items())), applied)


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


def _decode(data: bytes, uri: str) -> Baseline:
    """The state as written (an applied state), or as an older maintainer kept it (the
    applied plans' manifest.json, merged)."""
    if len(data) > MAX_STATE_BYTES:
        raise StorageError(f"{uri} is larger than {MAX_STATE_BYTES} bytes", where=uri, hint=_HINT)
    return parse_baseline(data, what=f"the state {uri}", where=uri, error=StorageError, hint=_HINT)


def _health_tables(data: bytes, uri: str) -> dict[str, list[dict[str, Any]]]:
    """The ``tables`` of the health history; its entries are read strictly by ``status``."""
    hint = "it is written by maintainer apply: delete it to start the history again"
    if len(data) > MAX_STATE_BYTES:
        raise StorageError(f"{uri} is larger than {MAX_STATE_BYTES} bytes", where=uri, hint=hint)
    try:
        parsed = json.loads(data)
    except ValueError as exc:
        raise StorageError(f"{uri} is not JSON: {exc}", where=uri, hint=hint) from None
    tables = parsed.get("tables") if isinstance(parsed, dict) and parsed.get("version") == 1 else None
    if not isinstance(tables, dict) or not all(
        isinstance(v, list) and all(isinstance(e, dict) for e in v) for v in tables.values()
    ):
        raise StorageError(f"{uri} is not a version 1 health history", where=uri, hint=hint)
    return {str(name): list(entries) for name, entries in tables.items()}


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

    def read_manifest(self) -> AppliedState | None:
        """The last applied state, or None when nothing was applied yet. A state kept by an
        older maintainer (a manifest.json without ``applied``) gets it from ``applied.json``."""
        found = self.store.read_versioned(MANIFEST_PATH)
        return None if found is None else self._state(found.data)

    def _state(self, data: bytes) -> AppliedState:
        state = _decode(data, self.manifest_uri)
        if isinstance(state, AppliedState):
            return state
        return legacy_state(state, self._legacy_applied())

    def _legacy_applied(self) -> Applied:
        uri = self.where(LEGACY_APPLIED_PATH)
        found = self.store.read_versioned(LEGACY_APPLIED_PATH)
        if found is None:
            raise StorageError(
                f"the state {self.manifest_uri} was kept by an older maintainer, and the "
                f"{uri} that said which plan it applied is missing",
                where=uri,
                hint=_HINT,
            )
        return parse_legacy_applied(found.data, what=f"the state {uri}", where=uri, error=StorageError,
                                    hint=_HINT)  # fmt: skip

    def keep_applied(
        self,
        tables: Mapping[str, ManifestTable],
        applied: Applied,
        metadata: ManifestMetadata,
    ) -> StateUpdate:
        """Merge ``tables`` (name -> the applied plan's manifest entry) into the state."""
        attempts = self._merged_retrying(
            self.manifest_uri, lambda: self._write_merged(tables, applied, metadata)
        )
        return StateUpdate(self.manifest_uri, attempts, tuple(sorted(tables)))

    def _merged_retrying(self, uri: str, write_once: Callable[[], None]) -> int:
        """Run ``write_once`` (read, merge, conditional write) until a write is accepted; the
        number of attempts it took."""
        refused: StorageError | None = None
        for attempt in range(1, STATE_WRITE_ATTEMPTS + 1):
            try:
                write_once()
            except (FileExistsInStorageError, PreconditionFailedError, StorageUnavailableError) as exc:
                refused = exc
                if attempt < STATE_WRITE_ATTEMPTS:  # another apply wrote in between: read and merge again
                    self._sleep(min(RETRY_CAP_S, RETRY_BASE_S * 2 ** (attempt - 1)) * (1 + random.random()))
                continue
            return attempt
        raise StateConflictError(
            f"the state {uri} kept changing under this apply: {STATE_WRITE_ATTEMPTS} conditional "
            f"writes, each merged again from a fresh read, were refused (the last: {refused})",
            where=uri,
            hint="other applies are updating the same state at the same time: run them one at a "
            "time (one concurrency group), or apply again to record this one",
        )

    def record_health(self, entries: Mapping[str, Mapping[str, Any]]) -> int:
        """Append one entry per table (its figures before and after an apply) to the health
        history, keeping the newest :data:`HEALTH_POINTS` per table; the attempts it took."""
        return self._merged_retrying(self.where(HEALTH_PATH), lambda: self._write_health(entries))

    def read_health(self) -> dict[str, list[dict[str, Any]]]:
        """The health history: per table, its entries oldest first (empty when none yet)."""
        found = self.store.read_versioned(HEALTH_PATH, limit=MAX_STATE_BYTES)
        return {} if found is None else _health_tables(found.data, self.where(HEALTH_PATH))

    def _write_health(self, entries: Mapping[str, Mapping[str, Any]]) -> None:
        found = self.store.read_versioned(HEALTH_PATH, limit=MAX_STATE_BYTES)
        tables = _health_tables(found.data, self.where(HEALTH_PATH)) if found else {}
        for name, entry in entries.items():
            tables[name] = [*tables.get(name, []), dict(entry)][-HEALTH_POINTS:]
        data = _encode({"version": 1, "tables": dict(sorted(tables.items()))})
        if found is None:
            self.store.create_if_absent(HEALTH_PATH, data)
            self.store.verify_refuses_create(HEALTH_PATH, data)
        else:
            self.store.replace_if_version(HEALTH_PATH, data, found.version)
            self.store.verify_refuses_stale_replace(HEALTH_PATH, data)

    def _write_merged(
        self, tables: Mapping[str, ManifestTable], applied: Applied, metadata: ManifestMetadata
    ) -> None:
        """One read, merge and conditional write; a server that ignores the condition is caught
        once per endpoint and process (:mod:`maintainer.storage.conditional`)."""
        found = self.store.read_versioned(MANIFEST_PATH)
        kept = self._state(found.data) if found else None
        data = _encode(redact_tree(dump_record(merge_state(kept, tables, applied, metadata))))
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
