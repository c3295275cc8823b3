"""The JSON Schema of ``manifest.json`` (``schemas/manifest_json.v1.json``, whose ``$id`` the
file's ``metadata.maintainer_schema_version`` names), generated from the records the writer dumps
and the readers parse (``maintainer.graph.manifest``); a test keeps the checked-in file current."""

from __future__ import annotations

from typing import Any

from maintainer.graph.manifest import MANIFEST_SCHEMA_VERSION, compiled_adapter

SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def manifest_json_schema() -> dict[str, Any]:
    model = compiled_adapter().json_schema(mode="serialization", by_alias=True)
    return {
        "$schema": SCHEMA_DRAFT,
        "$id": MANIFEST_SCHEMA_VERSION,
        **model,
        "title": "maintainer target/manifest.json (written by `maintainer compile`)",
        "description": "The resolved project, shaped like dbt's manifest.json: metadata, nodes by "
        "unique_id, tables by name (resolved spec, where each value came from, a checksum for "
        "--state), and the graph. Not the schema of the YAML manifests users write (that is "
        "manifest.schema.json).",
    }
