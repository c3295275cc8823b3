from __future__ import annotations

import json
import re
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer import __version__
from maintainer.commands.compile_cmd import unique_id
from maintainer.errors import StorageError
from maintainer.graph import NodeId
from maintainer.runner.results import (
    RUN_RESULTS_FILE,
    RUN_RESULTS_SCHEMA_VERSION,
    NodeResult,
    NodeRunStatus,
    RunResults,
    read_run_results,
    summarize,
    utc_timestamp,
    write_run_results,
)
from maintainer.services.base import Drift

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _results(*statuses: NodeRunStatus) -> RunResults:
    nodes = tuple(NodeResult(f"t{i}.clean", status) for i, status in enumerate(statuses))
    return RunResults("abc", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", nodes)


def _cleaned() -> NodeResult:
    return NodeResult(
        "trips.clean",
        NodeRunStatus.SUCCESS,
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:00:02.000Z",
        2.00049,
        {"files_deleted": 3, "bytes_deleted": 4096},
        (Drift("p/a.parquet", "kept: the file is savepointed"),),
        "3 files deleted",
        thread_id="maintainer-node_0",
    )


def test_run_results_have_dbt_s_shape(tmp_path: Path) -> None:
    results = RunResults("abc", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:03.250Z", (_cleaned(),))
    args = {"which": "apply", "plan_dir": tmp_path / "plan", "threads": 4, "fail_fast": False}
    path = write_run_results(tmp_path / "target", results, project="lake", args=args, invocation_id="inv-1")
    assert path == tmp_path / "target" / RUN_RESULTS_FILE
    data = read_run_results(path)
    assert data == json.loads(path.read_text())
    assert list(data) == [
        "metadata", "plan_id", "status", "started_at", "finished_at", "elapsed_time", "args", "results",
    ]  # fmt: skip
    metadata = data["metadata"]
    assert TIMESTAMP.fullmatch(metadata.pop("generated_at"))
    assert metadata == {
        "maintainer_schema_version": RUN_RESULTS_SCHEMA_VERSION,
        "maintainer_version": __version__,
        "invocation_id": "inv-1",
        "env": {},
    }
    assert data["plan_id"] == "abc" and data["status"] == "success"
    assert (data["started_at"], data["finished_at"]) == (
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:00:03.250Z",
    )
    assert data["elapsed_time"] == 3.25
    assert data["args"] == {
        "which": "apply",
        "plan_dir": str(tmp_path / "plan"),
        "threads": 4,
        "fail_fast": False,
    }
    assert data["results"] == [
        {
            "unique_id": "table.lake.trips.clean",
            "node": "trips.clean",
            "status": "success",
            "timing": [
                {
                    "name": "execute",
                    "started_at": "2026-01-01T00:00:00.000Z",
                    "completed_at": "2026-01-01T00:00:02.000Z",
                },
            ],
            "thread_id": "maintainer-node_0",
            "execution_time": 2.0,
            "message": "3 files deleted",
            "adapter_response": {"files_deleted": 3, "bytes_deleted": 4096},
            "drift": [{"path": "p/a.parquet", "reason": "kept: the file is savepointed"}],
            "failures": None,
        }
    ]


def test_unique_ids_are_the_keys_of_compile_s_manifest() -> None:
    node = NodeId("trips", "compaction")
    result = NodeResult(str(node), NodeRunStatus.SUCCESS)
    assert result.unique_id("lake") == unique_id("lake", node) == "table.lake.trips.compaction"
    assert result.unique_id() == "table.trips.compaction"  # no project given


def test_defaults_a_caller_need_not_give(tmp_path: Path) -> None:
    """``write_run_results(directory, results)`` as before: no project, no args, a new uuid4."""
    data = read_run_results(write_run_results(tmp_path, _results(NodeRunStatus.SUCCESS)))
    assert data["args"] == {}
    assert uuid.UUID(data["metadata"]["invocation_id"]).version == 4
    assert data["elapsed_time"] == 1.0
    assert [r["unique_id"] for r in data["results"]] == ["table.t0.clean"]
    again = read_run_results(write_run_results(tmp_path, _results(NodeRunStatus.SUCCESS)))
    assert again["metadata"]["invocation_id"] != data["metadata"]["invocation_id"]


def test_a_node_that_never_started_has_no_timing_and_no_thread() -> None:
    skipped = NodeResult("t.clean", NodeRunStatus.SKIPPED, message="skipped: upstream node t.rollback failed")
    (written,) = RunResults("abc", "a", "b", (skipped,)).to_json()["results"]
    assert written["timing"] == [] and written["thread_id"] is None and written["execution_time"] == 0.0
    assert written["status"] == "skipped" and written["adapter_response"] == {} and written["drift"] == []


def test_thread_id_is_the_worker_that_made_the_result() -> None:
    made: list[NodeResult] = []
    worker = threading.Thread(target=lambda: made.append(NodeResult("t.clean", NodeRunStatus.SUCCESS)),
                              name="maintainer-node_3")  # fmt: skip
    worker.start()
    worker.join()
    assert made[0].thread_id == "maintainer-node_3"
    assert NodeResult("t.clean", NodeRunStatus.SKIPPED).thread_id is None  # the main thread


def test_elapsed_time_is_zero_without_timestamps() -> None:
    assert RunResults("abc", "s", "f", ()).elapsed_time == 0.0


def test_status_is_error_when_any_node_failed_and_skips_do_not_fail() -> None:
    assert _results(NodeRunStatus.SUCCESS, NodeRunStatus.SKIPPED).status == "success"
    failed = _results(NodeRunStatus.SUCCESS, NodeRunStatus.ERROR, NodeRunStatus.SKIPPED)
    assert failed.failed and failed.status == "error"
    assert failed.to_json()["status"] == "error"
    assert summarize(failed.nodes) == {"success": 1, "error": 1, "skipped": 1, "blocked": 0, "cancelled": 0}


def test_reading_what_is_no_run_results_fails_clearly(tmp_path: Path) -> None:
    path = tmp_path / RUN_RESULTS_FILE
    path.write_text('{"plan_id": "abc", "nodes": []}')  # the v1 shape
    with pytest.raises(StorageError, match="no `results` list"):
        read_run_results(path)
    path.write_text("[]")
    with pytest.raises(StorageError, match="not a JSON object"):
        read_run_results(path)


def test_hostile_run_results_fail_clearly(tmp_path: Path) -> None:
    path = tmp_path / RUN_RESULTS_FILE
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(
        StorageError, match=r"run_results\.json is not read as JSON: objects and arrays nested"
    ):
        read_run_results(path)


def test_timestamps_are_utc_with_milliseconds() -> None:
    moment = datetime(2026, 11, 21, 5, 30, 0, 123456, tzinfo=timezone.utc)
    assert utc_timestamp(moment) == "2026-11-21T05:30:00.123Z"


def test_a_run_an_interrupt_cancelled_says_so_unless_a_node_failed() -> None:
    done = NodeResult("a.clean", NodeRunStatus.SUCCESS)
    cancelled = NodeResult("b.clean", NodeRunStatus.CANCELLED)
    failed = NodeResult("c.clean", NodeRunStatus.ERROR)
    assert RunResults("p", "s", "f", (done,)).status == "success"
    interrupted = RunResults("p", "s", "f", (done, cancelled))
    assert interrupted.status == "cancelled" and interrupted.cancelled == ("b.clean",)
    assert RunResults("p", "s", "f", (done, cancelled, failed)).status == "error"
