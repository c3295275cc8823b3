"""``run_results.json``: what apply did, per node, shaped like dbt's ``run_results.json``.

The runner builds ``NodeResult``/``RunResults``; ``RunResults.to_json`` turns them into the file
(``RunResultsFile``, whose JSON Schema is ``schemas/run_results.v2.json``, see ``runner.schema``):

- ``metadata``: ``maintainer_schema_version`` (the schema's URL, its ``$id``), ``maintainer_version``,
  ``generated_at`` (UTC, ISO-8601 with milliseconds and ``Z``), ``invocation_id`` (a uuid4), ``env``;
- ``plan_id``, ``status`` (``error`` when any node failed, else ``cancelled`` when an interrupt
  cancelled one), ``started_at``, ``finished_at``, ``elapsed_time`` (seconds), ``args`` (the
  command's options, as the caller gives them);
- ``results``: one per node of the plan, dependencies first: ``unique_id`` (as in ``target/manifest.json``:
  ``table.<project>.<table>.<service>``), ``node`` (``<table>.<service>``), ``status``,
  ``timing`` (``execute``: started/completed; empty for a node that never started),
  ``thread_id``, ``execution_time`` (seconds), ``message``, ``adapter_response`` (what the node
  did: its effects), ``drift`` (what it had to leave undone, and why) and ``failures`` (null).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, TypeAdapter

from maintainer import __version__
from maintainer.clock import utc_now
from maintainer.errors import StorageError
from maintainer.secrets import redact_tree
from maintainer.services.base import Drift
from maintainer.storage.limits import MAX_PLAN_BYTES, loads_bounded, read_local_capped

RUN_RESULTS_FILE = "run_results.json"
RUN_RESULTS_SCHEMA_VERSION = "https://maintainer.dev/schemas/run_results/v2.json"
"""``metadata.maintainer_schema_version``: names schemas/run_results.v2.json (its ``$id``)."""


class NodeRunStatus(str, Enum):
    SUCCESS = "success"
    ERROR = "error"
    SKIPPED = "skipped"
    BLOCKED = "blocked"
    """Not run: blocked in the plan (a gate, a reader, an unreadable table) or by the stricter
    rule at apply. The table is left unmaintained: never success for automation."""
    CANCELLED = "cancelled"
    """Not run, or stopped at a safe point, because the apply was interrupted (Ctrl-C, SIGTERM):
    applying the same plan again runs it."""


def _worker_thread() -> str | None:
    """The thread making a result: the worker that ran the node (``None`` on the main thread,
    where the walk records a node skipped without running)."""
    current = threading.current_thread()
    return None if current is threading.main_thread() else current.name


@dataclass(frozen=True, slots=True)
class NodeResult:
    """What happened to one node (``id`` is ``<table>.<service>``)."""

    id: str
    status: NodeRunStatus
    started_at: str | None = None
    finished_at: str | None = None
    timing_s: float = 0.0
    effects: Mapping[str, Any] = field(default_factory=dict)
    """What the node did, as run_results.json writes it (its ``adapter_response``: the
    ``ApplyEffects`` its apply reported, as JSON)."""
    drift: tuple[Drift, ...] = ()
    message: str = ""
    thread_id: str | None = field(default_factory=_worker_thread)

    def unique_id(self, project: str = "") -> str:
        """As ``maintainer compile`` keys the node in manifest.json:
        ``table.<project>.<table>.<service>`` (``table.<table>.<service>`` without a project)."""
        return ".".join(("table", project, self.id) if project else ("table", self.id))

    def to_output(self, project: str = "") -> NodeResultOutput:
        timing: tuple[TimingInfo, ...] = ()
        if self.started_at is not None and self.finished_at is not None:
            timing = (TimingInfo("execute", self.started_at, self.finished_at),)
        return NodeResultOutput(
            unique_id=self.unique_id(project),
            node=self.id,
            status=self.status,
            timing=timing,
            thread_id=self.thread_id,
            execution_time=round(self.timing_s, 3),
            message=self.message,
            adapter_response=dict(self.effects),
            drift=self.drift,
            failures=None,
        )


@dataclass(frozen=True, slots=True)
class RunResults:
    """What one apply did: the plan it carried out, when, and each node's result."""

    plan_id: str
    started_at: str
    finished_at: str
    nodes: tuple[NodeResult, ...]

    @property
    def status(self) -> Literal["success", "error", "cancelled"]:
        """``error`` when a node failed, else ``cancelled`` when an interrupt cancelled one."""
        if self.failed:
            return "error"
        return "cancelled" if self.cancelled else "success"

    @property
    def failed(self) -> bool:
        return any(node.status is NodeRunStatus.ERROR for node in self.nodes)

    @property
    def cancelled(self) -> tuple[str, ...]:
        """The nodes an interrupt kept from running or stopped (the next apply runs them)."""
        return tuple(node.id for node in self.nodes if node.status is NodeRunStatus.CANCELLED)

    @property
    def blocked(self) -> tuple[str, ...]:
        """The nodes left unmaintained because something blocked them."""
        return tuple(node.id for node in self.nodes if node.status is NodeRunStatus.BLOCKED)

    @property
    def elapsed_time(self) -> float:
        """Seconds from ``started_at`` to ``finished_at`` (0.0 when either is no timestamp)."""
        try:
            started = datetime.fromisoformat(self.started_at)
            finished = datetime.fromisoformat(self.finished_at)
        except ValueError:
            return 0.0
        return round((finished - started).total_seconds(), 3)

    def to_output(
        self,
        *,
        project: str = "",
        args: Mapping[str, Any] | None = None,
        invocation_id: str | None = None,
    ) -> RunResultsFile:
        """The file's record: ``project`` names the nodes' ``unique_id`` as manifest.json does,
        ``args`` are the command's options (``{"which": "apply", "threads": 4, ...}``),
        ``invocation_id`` defaults to a new uuid4."""
        return RunResultsFile(
            metadata=RunResultsMetadata(
                maintainer_schema_version=RUN_RESULTS_SCHEMA_VERSION,
                maintainer_version=__version__,
                generated_at=utc_timestamp(),
                invocation_id=invocation_id or str(uuid.uuid4()),
                env={},
            ),
            plan_id=self.plan_id,
            status=self.status,
            started_at=self.started_at,
            finished_at=self.finished_at,
            elapsed_time=self.elapsed_time,
            args=dict(args or {}),
            results=tuple(node.to_output(project) for node in self.nodes),
        )

    def to_json(
        self,
        *,
        project: str = "",
        args: Mapping[str, Any] | None = None,
        invocation_id: str | None = None,
    ) -> dict[str, Any]:
        """run_results.json as JSON values (paths, enums and tuples in ``args`` made plain)."""
        record = self.to_output(project=project, args=args, invocation_id=invocation_id)
        data: dict[str, Any] = run_results_adapter().dump_python(record, mode="json")
        return data


# --- the file: what run_results.json holds, field by field (runner.schema describes these) ---

_FILE_CONFIG = ConfigDict(extra="forbid", use_attribute_docstrings=True)
"""How ``runner.schema`` describes the file's records: every field written, no other."""


@dataclass(frozen=True, slots=True)
class TimingInfo:
    """One step of a node's run, as in dbt's timing: execute, when it started and ended."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    name: Literal["execute"]
    started_at: str
    """UTC, ISO-8601 with milliseconds and Z."""
    completed_at: str
    """UTC, ISO-8601 with milliseconds and Z."""


@dataclass(frozen=True, slots=True)
class NodeResultOutput:
    """What happened to one node."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    unique_id: str
    """The node's key in target/manifest.json: table.<project>.<table>.<service>."""
    node: str
    """<table>.<service>, as the CLI prints it and --select takes it."""
    status: NodeRunStatus
    timing: tuple[TimingInfo, ...]
    """The execute step; empty for a node that never started."""
    thread_id: str | None
    """The worker thread that ran the node; null for a node skipped without running."""
    execution_time: float
    """Seconds the node ran."""
    message: str
    adapter_response: dict[str, Any]
    """What the node did: the effects its service declares (e.g. files_deleted, bytes_deleted,
    slices_compacted); an empty object for a node that did not run."""
    drift: tuple[Drift, ...]
    """Approved work the node did not do, and why."""
    failures: None
    """Always null (dbt's count of failing test rows; maintainer runs no tests)."""


@dataclass(frozen=True, slots=True)
class RunResultsMetadata:
    """Which maintainer wrote the file, when, and in which invocation."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    maintainer_schema_version: str
    """The URL of this file's JSON Schema (its $id)."""
    maintainer_version: str
    generated_at: str
    """UTC, ISO-8601 with milliseconds and Z."""
    invocation_id: str
    """A uuid4 naming this run."""
    env: dict[str, str]


@dataclass(frozen=True, slots=True)
class RunResultsFile:
    """What one apply did (target/run_results.json)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    metadata: RunResultsMetadata
    plan_id: str
    """The sha256 of the plan applied."""
    status: Literal["success", "error", "cancelled"]
    """error when any node failed, else cancelled when an interrupt (Ctrl-C, SIGTERM) cancelled
    a node: applying the plan again resumes."""
    started_at: str
    """UTC, ISO-8601 with milliseconds and Z."""
    finished_at: str
    """UTC, ISO-8601 with milliseconds and Z."""
    elapsed_time: float
    """Seconds from started_at to finished_at."""
    args: dict[str, Any]
    """The command's options, e.g. which (apply), plan_dir, threads, fail_fast."""
    results: tuple[NodeResultOutput, ...]
    """One per node of the plan, dependencies first."""


@cache
def run_results_adapter() -> TypeAdapter[RunResultsFile]:
    return TypeAdapter(RunResultsFile)


def utc_timestamp(moment: datetime | None = None) -> str:
    """ISO-8601 UTC with milliseconds, e.g. ``2026-11-21T05:30:00.123Z``."""
    moment = moment or utc_now()
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_run_results(
    directory: Path,
    results: RunResults,
    *,
    project: str = "",
    args: Mapping[str, Any] | None = None,
    invocation_id: str | None = None,
) -> Path:
    """Write ``<directory>/run_results.json``. ``project`` is the project's name (so each
    ``unique_id`` is the node's key in manifest.json), ``args`` the command's options (e.g.
    ``{"which": "apply", "plan_dir": ..., "threads": 4, "fail_fast": False}``), ``invocation_id``
    a uuid4 string (a new one by default)."""
    path = directory / RUN_RESULTS_FILE
    data = redact_tree(results.to_json(project=project, args=args, invocation_id=invocation_id))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot write run results: {exc}", where=str(path)) from exc
    return path


_RESULTS_HINT = "maintainer apply writes it: apply again to rewrite it"


def read_run_results(path: Path) -> dict[str, Any]:
    """run_results.json as written by ``write_run_results`` (one object with a ``results`` list)."""
    try:
        raw = read_local_capped(path, MAX_PLAN_BYTES, what=path.name, error=StorageError)
    except OSError as exc:
        raise StorageError(f"cannot read run results: {exc}", where=str(path)) from exc
    data = loads_bounded(raw, what=path.name, where=str(path), error=StorageError, hint=_RESULTS_HINT)
    if not isinstance(data, dict):
        raise StorageError("run results are not a JSON object", where=str(path))
    if not isinstance(data.get("results"), list):
        raise StorageError(
            "run results have no `results` list (an older format?): apply again to rewrite them",
            where=str(path),
        )
    return data


def summarize(nodes: Sequence[NodeResult]) -> dict[str, int]:
    counts = {status.value: 0 for status in NodeRunStatus}
    for node in nodes:
        counts[node.status.value] += 1
    return counts
