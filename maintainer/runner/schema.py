"""The JSON Schema of ``run_results.json``, generated from the runner's result model
(``schemas/run_results.v1.json``; a test keeps the checked-in file current and validates the
run results of real applies against it)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from maintainer.runner.results import RunResults

RUN_RESULTS_SCHEMA_FILE = "run_results.v1.json"
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"

_DERIVED_FIELDS: dict[str, dict[str, Any]] = {
    "status": {"enum": ["success", "error"], "description": "error when any node failed"},
}


def run_results_schema() -> dict[str, Any]:
    model = TypeAdapter(RunResults).json_schema(mode="serialization")
    return {
        "$schema": SCHEMA_DRAFT,
        **model,
        "properties": {**model["properties"], **_DERIVED_FIELDS},
        "required": sorted({*model.get("required", ()), *_DERIVED_FIELDS}),
        "title": "maintainer run results (run_results.json)",
    }
