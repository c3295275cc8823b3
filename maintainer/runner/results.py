"""``run_results.json``: what apply did, per node (dbt-like shape)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ConfigDict

from maintainer.clock import utc_now
from maintainer.errors import StorageError
from maintainer.services.base import Drift

RUN_RESULTS_FILE = "run_results.json"


class NodeRunStatus(str, Enum):
    SUCCESS = "success"
    ERROR = "error"
    SKIPPED = "skipped"


_SCHEMA_CONFIG = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)
"""How ``runner.schema`` describes these records: every field written, no other."""


@dataclass(frozen=True, slots=True)
class NodeResult:
    __pydantic_config__: ClassVar[ConfigDict] = _SCHEMA_CONFIG

    id: str
    status: NodeRunStatus
    started_at: str | None = None
    finished_at: str | None = None
    timing_s: float = 0.0
    effects: Mapping[str, Any] = field(default_factory=dict)
    drift: tuple[Drift, ...] = ()
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status.value,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "timing_s": round(self.timing_s, 3),
            "effects": dict(self.effects),
            "drift": [d.to_json() for d in self.drift],
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class RunResults:
    __pydantic_config__: ClassVar[ConfigDict] = _SCHEMA_CONFIG

    plan_id: str
    started_at: str
    finished_at: str
    nodes: tuple[NodeResult, ...]

    @property
    def status(self) -> str:
        return "error" if self.failed else "success"

    @property
    def failed(self) -> bool:
        return any(node.status is NodeRunStatus.ERROR for node in self.nodes)

    def to_json(self) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "status": self.status,
            "nodes": [node.to_json() for node in self.nodes],
        }


def utc_timestamp(moment: datetime | None = None) -> str:
    """ISO-8601 UTC with milliseconds, e.g. ``2026-11-21T05:30:00.123Z``."""
    moment = moment or utc_now()
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write_run_results(directory: Path, results: RunResults) -> Path:
    path = directory / RUN_RESULTS_FILE
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results.to_json(), indent=2, sort_keys=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot write run results: {exc}", where=str(path)) from exc
    return path


def read_run_results(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StorageError(f"cannot read run results: {exc}", where=str(path)) from exc
    if not isinstance(data, dict):
        raise StorageError("run results are not a JSON object", where=str(path))
    return data


def summarize(nodes: Sequence[NodeResult]) -> dict[str, int]:
    counts = {status.value: 0 for status in NodeRunStatus}
    for node in nodes:
        counts[node.status.value] += 1
    return counts
