"""The health history: what each apply changed in a table's figures ("did it help"), recorded
in the state backend (``history/health.json``) and shown by ``maintainer status --history``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from maintainer.errors import StorageError
from maintainer.health.records import FleetHealth, HealthPoint, HistoryEntry, TableHealth
from maintainer.units import human_bytes


@lru_cache(maxsize=1)
def _entries_adapter() -> TypeAdapter[dict[str, tuple[HistoryEntry, ...]]]:
    return TypeAdapter(dict[str, tuple[HistoryEntry, ...]])


def point_of(health: TableHealth) -> HealthPoint | None:
    logs, small, versions, timeline = health.log_backlog, health.small_files, health.versions, health.timeline
    if health.error or logs is None or small is None or versions is None or timeline is None:
        return None
    return HealthPoint(
        score=health.score,
        max_log_files_per_slice=logs.max_log_files_per_slice,
        log_files=logs.log_files,
        small_files=small.small_files,
        small_file_share=small.share,
        retained_versions=versions.retained_versions,
        retained_bytes=versions.retained_bytes,
        active_instants=timeline.active_instants,
        pending=len(health.pending),
        stuck=sum(1 for p in health.pending if p.stuck),
    )


def entry_json(entry: HistoryEntry) -> dict[str, Any]:
    data: dict[str, Any] = TypeAdapter(HistoryEntry).dump_python(entry, mode="json")
    return data


def parse_history(
    tables: Mapping[str, Sequence[Mapping[str, Any]]], where: str
) -> dict[str, tuple[HistoryEntry, ...]]:
    """The recorded entries, read strictly (a field missing, unknown or of the wrong type is an
    error naming the file)."""
    try:
        return _entries_adapter().validate_json(json.dumps(tables), strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        at = ".".join(str(p) for p in first["loc"])
        raise StorageError(
            f"the health history {where} is not one maintainer wrote: {at}: {first['msg']}",
            where=where,
            hint="delete it to start the history again (the next apply records a new one)",
        ) from None


CHANGES: tuple[tuple[str, str], ...] = (
    ("max_log_files_per_slice", "log files per slice"),
    ("small_files", "small files"),
    ("retained_versions", "file versions retained"),
    ("active_instants", "active instants"),
    ("stuck", "stuck instants"),
    ("score", "score"),
)


def what_changed(entry: HistoryEntry) -> str:
    """``log files per slice 14 -> 0, file versions retained 40 -> 10, 2.3 GiB freed`` (the
    figures that moved, and the bytes deleted); empty when nothing moved."""
    parts = []
    before, after = entry.before, entry.after
    if before is not None and after is not None:
        for field, label in CHANGES:
            old, new = getattr(before, field), getattr(after, field)
            if old != new:
                parts.append(f"{label} {old:g} -> {new:g}")
    if entry.bytes_freed:
        parts.append(f"{human_bytes(entry.bytes_freed)} freed")
    return ", ".join(parts)


def trends(fleet: FleetHealth) -> dict[str, list[tuple[str, float]]]:
    """Per table, (time, score) after each recorded apply, oldest first (the first apply's
    score before it leads)."""
    series: dict[str, list[tuple[str, float]]] = {}
    for table in fleet.tables:
        points: list[tuple[str, float]] = []
        for entry in table.history:
            if not points and entry.before is not None:
                points.append((entry.started_at, entry.before.score))
            if entry.after is not None:
                points.append((entry.finished_at, entry.after.score))
        if points:
            series[table.table] = points
    return series
