"""The JSON Schema of ``maintainer status --format json``, generated from the records
(``schemas/status.v1.json``; a test keeps the checked-in file current and validates real output
against it)."""

from __future__ import annotations

from typing import Any

from maintainer.health.formats import fleet_adapter
from maintainer.health.records import STATUS_SCHEMA_VERSION

STATUS_SCHEMA_FILE = "status.v1.json"
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def status_schema() -> dict[str, Any]:
    model = fleet_adapter().json_schema(mode="serialization")
    return {
        "$schema": SCHEMA_DRAFT,
        "$id": STATUS_SCHEMA_VERSION,
        **model,
        "title": "maintainer fleet health (`maintainer status --format json`)",
        "description": "Per selected table: figures read from the table, why each selected service "
        "has no work (the planners' reasons), the objectives of its slo and the health score with "
        "its parts; tables worst first.",
    }
