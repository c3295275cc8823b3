"""JSON Schemas of the project files, generated from the models.

The checked-in ``schemas/*.schema.json`` are these (a test keeps them current);
``maintainer init`` writes them into new projects for editors (yaml-language-server).
Because string values are Jinja templates, a number or boolean option also accepts
a ``{{ ... }}`` string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, RootModel

from maintainer.project.models import project_models
from maintainer.project.profiles import ProfileSettings

TEMPLATE_STRING = {"type": "string", "pattern": r"\{\{.*\}\}"}
_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"


class ProfilesFile(RootModel[dict[str, ProfileSettings]]):
    """profiles.yml: profiles by name, each with a default target and its outputs."""


def schema_models() -> dict[str, tuple[type[BaseModel], str]]:
    """The models of the project files, with the installed catalog's service blocks."""
    models = project_models()
    return {
        "maintainer_project.schema.json": (models.config, "maintainer project (maintainer_project.yml)"),
        "manifest.schema.json": (models.manifest, "maintainer manifest (tables/*.yml)"),
        "defaults.schema.json": (models.defaults, "maintainer folder defaults (_defaults.yml)"),
        "profiles.schema.json": (ProfilesFile, "maintainer profiles (profiles.yml)"),
    }


def generate_schemas() -> dict[str, dict[str, Any]]:
    schemas = {}
    for file_name, (model, title) in schema_models().items():
        schema = _allow_templates(model.model_json_schema(mode="validation"))
        schemas[file_name] = {"$schema": _SCHEMA_DRAFT, **schema, "title": title}
    return schemas


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, schema in generate_schemas().items():
        path = directory / file_name
        path.write_text(schema_text(schema), encoding="utf-8")
        written.append(path)
    return written


def _allow_templates(node: Any) -> Any:
    if isinstance(node, list):
        return [_allow_templates(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _allow_templates(value) for key, value in node.items()}
    if converted.get("type") in ("integer", "number", "boolean"):
        keep = {key: converted.pop(key) for key in ("description", "default", "title") if key in converted}
        return {**keep, "anyOf": [converted, TEMPLATE_STRING]}
    return converted
