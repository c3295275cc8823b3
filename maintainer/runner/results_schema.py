"""The JSON Schema of ``run_results.json``, generated from the records the runner writes
(``runner.results.RunResultsFile``; ``schemas/run_results.v2.json``, whose ``$id`` the file's
``metadata.maintainer_schema_version`` names; a test keeps the checked-in file current and
validates the run results of real applies against it)."""

from __future__ import annotations

from typing import Any

from maintainer.runner.results import RUN_RESULTS_SCHEMA_VERSION, run_results_adapter

RUN_RESULTS_SCHEMA_FILE = "run_results.v2.json"
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def run_results_schema() -> dict[str, Any]:
    model = run_results_adapter().json_schema(mode="serialization")
    return {
        "$schema": SCHEMA_DRAFT,
        "$id": RUN_RESULTS_SCHEMA_VERSION,
        **model,
        "title": "maintainer run results (target/run_results.json, written by `maintainer apply`)",
        "description": "What one apply did, shaped like dbt's run_results.json: metadata, the plan "
        "applied, status, timing, the command's args and one result per node (unique_id as in "
        "target/manifest.json).",
    }
