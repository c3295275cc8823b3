"""The JSON Schema of ``run_results.json``, generated from the records the runner writes
(``runner.results.RunResultsFile``; ``schemas/run_results.v2.json``, whose ``$id`` the file's
``metadata.maintainer_schema_version`` names; a test keeps the checked-in file current and
validates the run results of real applies against it).

A node's ``adapter_response`` is any of the effects the installed catalog's services declare
(``ServiceDeclaration.apply_effects``), or the empty object of a node that did not run
(``services.base.NoEffects``): a service added to the registry brings its effects along."""

from __future__ import annotations

import operator
from functools import reduce
from typing import Any

from pydantic import TypeAdapter

from maintainer.catalog import CatalogError, installed
from maintainer.runner.results import RUN_RESULTS_SCHEMA_VERSION, run_results_adapter
from maintainer.services.base import NoEffects

RUN_RESULTS_SCHEMA_FILE = "run_results.v2.json"
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def run_results_schema() -> dict[str, Any]:
    model = run_results_adapter().json_schema(mode="serialization")
    return {
        "$schema": SCHEMA_DRAFT,
        "$id": RUN_RESULTS_SCHEMA_VERSION,
        **_with_effects(model),
        "title": "maintainer run results (target/run_results.json, written by `maintainer apply`)",
        "description": "What one apply did, shaped like dbt's run_results.json: metadata, the plan "
        "applied, status, timing, the command's args and one result per node (unique_id as in "
        "target/manifest.json).",
    }


def apply_effects_schema() -> dict[str, Any]:
    """The ``anyOf`` of every installed service's apply effects and of the empty object, with
    their ``$defs``."""
    members: tuple[type[Any], ...] = (*installed().apply_effects, NoEffects)
    union = reduce(operator.or_, members)
    schema: dict[str, Any] = TypeAdapter(union).json_schema(mode="serialization")
    return schema


def _with_effects(model: dict[str, Any]) -> dict[str, Any]:
    """``model`` with each node's ``adapter_response`` described by :func:`apply_effects_schema`."""
    effects = apply_effects_schema()
    defs = dict(model["$defs"])
    clashes = sorted(set(defs) & set(effects["$defs"]))
    if clashes:
        raise CatalogError(f"apply effects named as a record of run_results.json: {', '.join(clashes)}")
    result = dict(defs["NodeResultOutput"])
    response = result["properties"]["adapter_response"]
    properties = {
        **result["properties"],
        "adapter_response": {"anyOf": effects["anyOf"], "description": response["description"]},
    }
    defs["NodeResultOutput"] = {**result, "properties": properties}
    return {**model, "$defs": dict(sorted({**defs, **effects["$defs"]}.items()))}
