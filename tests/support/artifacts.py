"""Reading what the CLI wrote, checked against the checked-in JSON Schemas (``schemas/``) first:
every plan.json and run_results.json an end-to-end test reads is proven to match its schema (and
each node's ``adapter_response`` to be exactly the JSON of the apply effects its service
declares)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from maintainer.artifact.directory import PLAN_FILE, SavedPlan, read_plan
from maintainer.artifact.plan_schema import PLAN_SCHEMA_FILE
from maintainer.catalog import installed
from maintainer.runner.results import RUN_RESULTS_FILE
from maintainer.runner.results_schema import RUN_RESULTS_SCHEMA_FILE

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@cache
def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return loaded


def validated_json(path: Path, schema_name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema(schema_name))
    return data


def plan_json(plan_dir: Path) -> dict[str, Any]:
    """plan.json of a plan directory, validated against its schema."""
    return validated_json(plan_dir / PLAN_FILE, PLAN_SCHEMA_FILE)


def saved_plan(plan_dir: Path) -> SavedPlan:
    """The plan of a plan directory as apply reads it (plan.json validated against its schema)."""
    plan_json(plan_dir)
    return read_plan(plan_dir)


def run_results(target_dir: Path) -> dict[str, Any]:
    """run_results.json of a target directory, validated against its schema; each node's
    response is its service's apply effects, as they write themselves."""
    data = validated_json(target_dir / RUN_RESULTS_FILE, RUN_RESULTS_SCHEMA_FILE)
    for result in data["results"]:
        check_apply_effects(result["node"], result["adapter_response"])
    return data


def check_apply_effects(node: str, response: dict[str, Any]) -> None:
    """``response`` (a node's ``adapter_response``) is empty, or the JSON of the apply effects
    the node's service declares, key for key and in order."""
    if not response:
        return
    model = installed().by_name[node.rpartition(".")[2]].apply_effects
    assert model is not None, f"{node} reported effects its service does not declare"
    again = model.model_validate(response).to_json()
    assert json.dumps(again) == json.dumps(response), f"{node}: {response} is not {model.__name__}'s JSON"
