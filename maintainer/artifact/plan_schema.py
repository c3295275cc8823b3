"""The JSON Schema of ``plan.json``, generated from the plan model (``schemas/plan.v<N>.json``,
N the plan format version; a test keeps the checked-in file current and validates real plans
against it). CI tools can validate a plan, or read its actions, without maintainer."""

from __future__ import annotations

from typing import Any

from maintainer.artifact.canonical import PLAN_ID_FIELD
from maintainer.artifact.directory import PAYLOAD_HASHES_FIELD, SIGNATURE_FIELD
from maintainer.artifact.model import FORMAT_VERSION, plan_adapter

PLAN_SCHEMA_FILE = f"plan.v{FORMAT_VERSION}.json"
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"

_STORED_FIELDS: dict[str, dict[str, Any]] = {
    PLAN_ID_FIELD: {
        "type": "string",
        "pattern": "^[0-9a-f]{64}$",
        "description": "sha256 of the canonical body (every field but plan_id, payloads, signature)",
    },
    PAYLOAD_HASHES_FIELD: {
        "type": "object",
        "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "description": "payload file name (in payloads/) -> its sha256",
    },
    SIGNATURE_FIELD: {
        "type": "string",
        "pattern": "^hmac-sha256:[0-9a-f]{64}$",
        "description": "present when the plan was made with MAINTAINER_PLAN_KEY",
    },
}


def plan_schema() -> dict[str, Any]:
    """The schema of a stored plan.json: the plan body as the model writes it, with the plan
    id, payload hashes and (optional) signature beside it."""
    body = plan_adapter().json_schema(mode="serialization")
    properties = {**body["properties"], **_STORED_FIELDS}
    required = sorted({*body.get("required", ()), PLAN_ID_FIELD, PAYLOAD_HASHES_FIELD})
    return {
        "$schema": SCHEMA_DRAFT,
        **body,
        "properties": properties,
        "required": required,
        "title": f"maintainer plan (plan.json, format version {FORMAT_VERSION})",
    }
