"""schemas/run_results.v2.json: generated from the runner's result records and the services'
declared apply effects, and checked in (the end-to-end tests validate every run_results.json
they read against it: tests/support/artifacts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from maintainer.catalog import installed
from maintainer.project.project_schema import schema_text
from maintainer.runner.results import RUN_RESULTS_SCHEMA_VERSION, NodeResult, NodeRunStatus, RunResults
from maintainer.runner.results_schema import RUN_RESULTS_SCHEMA_FILE, run_results_schema
from maintainer.services.base import Drift, NoEffects
from maintainer.services.clean.effects import CleanApplyEffects
from tests.support.artifacts import SCHEMAS, check_apply_effects

EXPECTED_RESULTS = Path(__file__).resolve().parents[2] / "e2e" / "expected" / "unchanged" / "run_results.json"
"""A real apply of every service (tests/e2e/test_cli_artifacts_unchanged.py keeps it current)."""


def test_the_checked_in_schema_is_current() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.runner.results_schema import
    RUN_RESULTS_SCHEMA_FILE, run_results_schema; from maintainer.project.project_schema import schema_text;
    Path("schemas", RUN_RESULTS_SCHEMA_FILE).write_text(schema_text(run_results_schema()))'"""
    checked_in = (SCHEMAS / RUN_RESULTS_SCHEMA_FILE).read_text(encoding="utf-8")
    assert checked_in == schema_text(run_results_schema())
    assert not (SCHEMAS / "run_results.v1.json").exists()


def test_every_nodes_response_of_a_real_apply_of_every_service_is_its_declared_effects() -> None:
    schema = run_results_schema()
    response = {
        **schema["$defs"]["NodeResultOutput"]["properties"]["adapter_response"],
        "$defs": schema["$defs"],
    }
    results = json.loads(EXPECTED_RESULTS.read_text(encoding="utf-8"))["results"]
    assert {r["node"].rpartition(".")[2] for r in results if r["adapter_response"]} == {
        s.name for s in installed().services
    }
    for result in results:
        jsonschema.validate(result["adapter_response"], response)
        check_apply_effects(result["node"], result["adapter_response"])


def test_the_files_name_their_schema() -> None:
    schema = run_results_schema()
    assert schema["$id"] == RUN_RESULTS_SCHEMA_VERSION
    assert RUN_RESULTS_SCHEMA_VERSION.endswith("/run_results/v2.json") and RUN_RESULTS_SCHEMA_FILE.endswith(
        "v2.json"
    )


def effect_names() -> set[str]:
    models: tuple[type[Any], ...] = (*installed().apply_effects, NoEffects)
    return {model.__name__ for model in models}


def test_every_field_is_required_and_no_other_allowed() -> None:
    """Every field of the file's records is always written; of the apply effects, those
    without a default (a field with one is written when that part of the node ran)."""
    schema = run_results_schema()
    effects = effect_names()
    for name, record in [("", schema), *schema["$defs"].items()]:
        if record.get("type") == "object":
            assert record["additionalProperties"] is False
            optional = (
                {f for f, s in record["properties"].items() if "default" in s} if name in effects else set()
            )
            assert set(record.get("required", ())) == set(record["properties"]) - optional


def test_a_nodes_response_is_one_of_the_declared_apply_effects() -> None:
    schema = run_results_schema()
    response = schema["$defs"]["NodeResultOutput"]["properties"]["adapter_response"]
    assert {ref["$ref"].rpartition("/")[2] for ref in response["anyOf"]} == effect_names()
    assert len(installed().apply_effects) == len(installed().services)  # every service declares its own


def test_what_the_runner_writes_satisfies_it_and_a_bad_status_does_not() -> None:
    effects = CleanApplyEffects(
        cleans=("20260101000000000",),
        files_deleted=3,
        bytes_deleted=30,
        partitions_deleted=(),
        files_failed=(),
    ).to_json()
    node = NodeResult("t.clean", NodeRunStatus.SUCCESS, "a", "b", 1.23456, effects,
                      (Drift("p/f.parquet", "kept"),), "3 files deleted")  # fmt: skip
    skipped = NodeResult("t.archive", NodeRunStatus.SKIPPED, message="skipped: upstream node t.clean failed")
    written = RunResults("f" * 64, "a", "b", (node, skipped)).to_json(project="lake", args={"which": "apply"})
    jsonschema.validate(written, run_results_schema())
    written["results"][0]["status"] = "done"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, run_results_schema())


@pytest.mark.parametrize(
    "response",
    [
        {"files_deleted": 3},
        {"slices_compacted": "2"},
        {"savepoints_created": ["1"], "savepoint_created": ["1"]},
    ],
)
def test_a_response_no_service_declares_is_refused(response: dict[str, object]) -> None:
    """A clean's effects without most of its fields, a count as a string, a typo'd key."""
    written = RunResults("f" * 64, "a", "b", (NodeResult("t.x", NodeRunStatus.SUCCESS, effects=response),))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written.to_json(), run_results_schema())


def test_an_unknown_field_is_refused() -> None:
    written = RunResults("f" * 64, "a", "b", (NodeResult("t.clean", NodeRunStatus.SUCCESS),)).to_json()
    written["results"][0]["id"] = "t.clean"  # the v1 name
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, run_results_schema())
