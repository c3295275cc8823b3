from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from maintainer.runner.results import (
    RUN_RESULTS_FILE,
    NodeResult,
    NodeRunStatus,
    RunResults,
    read_run_results,
    summarize,
    utc_timestamp,
    write_run_results,
)
from maintainer.services.base import Drift


def _results(*statuses: NodeRunStatus) -> RunResults:
    nodes = tuple(NodeResult(f"t{i}.clean", status) for i, status in enumerate(statuses))
    return RunResults("abc", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", nodes)


def test_run_results_have_the_dbt_like_shape(tmp_path: Path) -> None:
    node = NodeResult(
        "trips.clean",
        NodeRunStatus.SUCCESS,
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:00:02.000Z",
        2.00049,
        {"files_deleted": 3},
        (Drift("p/a.parquet", "kept: the file is savepointed"),),
        "3 files deleted",
    )
    results = RunResults("abc", "s", "f", (node,))
    path = write_run_results(tmp_path / "target", results)
    assert path == tmp_path / "target" / RUN_RESULTS_FILE
    data = read_run_results(path)
    assert data == json.loads(path.read_text())
    assert data["plan_id"] == "abc" and data["status"] == "success"
    assert data["nodes"] == [
        {
            "id": "trips.clean",
            "status": "success",
            "started_at": "2026-01-01T00:00:00.000Z",
            "finished_at": "2026-01-01T00:00:02.000Z",
            "timing_s": 2.0,
            "effects": {"files_deleted": 3},
            "drift": [{"path": "p/a.parquet", "reason": "kept: the file is savepointed"}],
            "message": "3 files deleted",
        }
    ]


def test_status_is_error_when_any_node_failed_and_skips_do_not_fail() -> None:
    assert _results(NodeRunStatus.SUCCESS, NodeRunStatus.SKIPPED).status == "success"
    failed = _results(NodeRunStatus.SUCCESS, NodeRunStatus.ERROR, NodeRunStatus.SKIPPED)
    assert failed.failed and failed.status == "error"
    assert summarize(failed.nodes) == {"success": 1, "error": 1, "skipped": 1}


def test_timestamps_are_utc_with_milliseconds() -> None:
    moment = datetime(2026, 11, 21, 5, 30, 0, 123456, tzinfo=timezone.utc)
    assert utc_timestamp(moment) == "2026-11-21T05:30:00.123Z"
