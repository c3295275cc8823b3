"""schemas/run_results.v1.json: generated from the runner's result model and checked in (the
end-to-end tests validate every run_results.json they read against it: tests/support/artifacts)."""

from __future__ import annotations

import jsonschema
import pytest

from maintainer.project.schema import schema_text
from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from maintainer.runner.schema import RUN_RESULTS_SCHEMA_FILE, run_results_schema
from maintainer.services.base import Drift
from tests.support.artifacts import SCHEMAS


def test_the_checked_in_schema_is_current() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.runner.schema import
    RUN_RESULTS_SCHEMA_FILE, run_results_schema; from maintainer.project.schema import schema_text;
    Path("schemas", RUN_RESULTS_SCHEMA_FILE).write_text(schema_text(run_results_schema()))'"""
    checked_in = (SCHEMAS / RUN_RESULTS_SCHEMA_FILE).read_text(encoding="utf-8")
    assert checked_in == schema_text(run_results_schema())


def test_what_the_runner_writes_satisfies_it_and_a_bad_status_does_not() -> None:
    node = NodeResult("t.clean", NodeRunStatus.SUCCESS, "a", "b", 1.23456, {"files_deleted": 3},
                      (Drift("p/f.parquet", "kept"),), "3 files deleted")  # fmt: skip
    written = RunResults("f" * 64, "a", "b", (node,)).to_json()
    jsonschema.validate(written, run_results_schema())
    written["nodes"][0]["status"] = "done"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, run_results_schema())
