"""schemas/run_results.v2.json: generated from the runner's result records and checked in (the
end-to-end tests validate every run_results.json they read against it: tests/support/artifacts)."""

from __future__ import annotations

import jsonschema
import pytest

from maintainer.project.project_schema import schema_text
from maintainer.runner.results import RUN_RESULTS_SCHEMA_VERSION, NodeResult, NodeRunStatus, RunResults
from maintainer.runner.results_schema import RUN_RESULTS_SCHEMA_FILE, run_results_schema
from maintainer.services.base import Drift
from tests.support.artifacts import SCHEMAS


def test_the_checked_in_schema_is_current() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.runner.results_schema import
    RUN_RESULTS_SCHEMA_FILE, run_results_schema; from maintainer.project.project_schema import schema_text;
    Path("schemas", RUN_RESULTS_SCHEMA_FILE).write_text(schema_text(run_results_schema()))'"""
    checked_in = (SCHEMAS / RUN_RESULTS_SCHEMA_FILE).read_text(encoding="utf-8")
    assert checked_in == schema_text(run_results_schema())
    assert not (SCHEMAS / "run_results.v1.json").exists()


def test_the_files_name_their_schema() -> None:
    schema = run_results_schema()
    assert schema["$id"] == RUN_RESULTS_SCHEMA_VERSION
    assert RUN_RESULTS_SCHEMA_VERSION.endswith("/run_results/v2.json") and RUN_RESULTS_SCHEMA_FILE.endswith(
        "v2.json"
    )


def test_every_field_is_required_and_no_other_allowed() -> None:
    schema = run_results_schema()
    for record in (schema, *schema["$defs"].values()):
        if record.get("type") == "object":
            assert record["additionalProperties"] is False
            assert set(record["required"]) == set(record["properties"])


def test_what_the_runner_writes_satisfies_it_and_a_bad_status_does_not() -> None:
    node = NodeResult("t.clean", NodeRunStatus.SUCCESS, "a", "b", 1.23456, {"files_deleted": 3},
                      (Drift("p/f.parquet", "kept"),), "3 files deleted")  # fmt: skip
    skipped = NodeResult("t.archive", NodeRunStatus.SKIPPED, message="skipped: upstream node t.clean failed")
    written = RunResults("f" * 64, "a", "b", (node, skipped)).to_json(project="lake", args={"which": "apply"})
    jsonschema.validate(written, run_results_schema())
    written["results"][0]["status"] = "done"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, run_results_schema())


def test_an_unknown_field_is_refused() -> None:
    written = RunResults("f" * 64, "a", "b", (NodeResult("t.clean", NodeRunStatus.SUCCESS),)).to_json()
    written["results"][0]["id"] = "t.clean"  # the v1 name
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, run_results_schema())
