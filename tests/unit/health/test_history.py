"""The health history: what moved, read back strictly, merged in the state backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.errors import StorageError
from maintainer.health.history import entry_json, parse_history, what_changed
from maintainer.health.records import HealthPoint, HistoryEntry
from maintainer.runner.state_backend import HEALTH_PATH, HEALTH_POINTS, StateBackend


def point(**changes: float) -> HealthPoint:
    values: dict[str, float] = {
        "score": 70.0, "max_log_files_per_slice": 14, "log_files": 30, "small_files": 3,
        "small_file_share": 0.5, "retained_versions": 40, "retained_bytes": 1000,
        "active_instants": 20, "pending": 1, "stuck": 0,
    }  # fmt: skip
    values.update(changes)
    return HealthPoint(**values)  # type: ignore[arg-type]


def entry(
    run: str = "r1", freed: int = 0, before: HealthPoint | None = None, after: HealthPoint | None = None
) -> HistoryEntry:
    return HistoryEntry(
        run=run,
        started_at="2026-11-28T00:00:00+00:00",
        finished_at="2026-11-28T00:01:00+00:00",
        plan_id="p" * 64,
        before=before,
        after=after,
        bytes_freed=freed,
    )


def test_what_changed_names_the_figures_that_moved_and_the_bytes_freed() -> None:
    moved = entry(
        freed=3 * 1024**3,
        before=point(),
        after=point(max_log_files_per_slice=0, retained_versions=10, score=95),
    )
    assert what_changed(moved) == (
        "log files per slice 14 -> 0, file versions retained 40 -> 10, score 70 -> 95, 3.0 GiB freed"
    )
    assert what_changed(entry(before=point(), after=point())) == ""
    assert what_changed(entry(freed=10)) == "10 B freed"


def test_the_history_is_read_strictly() -> None:
    good = {"t": [entry_json(entry(before=point(), after=point()))]}
    assert parse_history(good, "h.json")["t"][0].after == point()
    broken = {"t": [{**entry_json(entry()), "bytes_freed": "many"}]}
    with pytest.raises(StorageError, match=r"h.json is not one maintainer wrote: t.0.bytes_freed"):
        parse_history(broken, "h.json")
    unknown = {"t": [{**entry_json(entry()), "extra": 1}]}
    with pytest.raises(StorageError, match="extra"):
        parse_history(unknown, "h.json")


def test_the_backend_appends_per_table_and_keeps_the_newest(tmp_path: Path) -> None:
    backend = StateBackend.at(str(tmp_path / "state"))
    assert backend.read_health() == {}
    backend.record_health({"a": entry_json(entry("r1")), "b": entry_json(entry("r1"))})
    backend.record_health({"a": entry_json(entry("r2"))})
    history = parse_history(backend.read_health(), HEALTH_PATH)
    assert [e.run for e in history["a"]] == ["r1", "r2"]
    assert [e.run for e in history["b"]] == ["r1"]
    for index in range(HEALTH_POINTS + 5):
        backend.record_health({"a": entry_json(entry(f"x{index:04d}"))})
    runs = [e.run for e in parse_history(backend.read_health(), HEALTH_PATH)["a"]]
    assert len(runs) == HEALTH_POINTS and runs[-1] == f"x{HEALTH_POINTS + 4:04d}"


def test_a_damaged_history_is_an_error_naming_it(tmp_path: Path) -> None:
    backend = StateBackend.at(str(tmp_path / "state"))
    target = tmp_path / "state" / HEALTH_PATH
    target.parent.mkdir(parents=True)
    target.write_text("{not json")
    with pytest.raises(StorageError, match=r"health\.json is not JSON"):
        backend.read_health()
    target.write_text('{"version": 2, "tables": {}}')
    with pytest.raises(StorageError, match="not a version 1 health history"):
        backend.read_health()
