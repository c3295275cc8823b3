from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from maintainer.project.project_schema import generate_schemas, schema_text

REPO = Path(__file__).resolve().parents[3]
TEMPLATE = REPO / "project_template"
TEMPLATE_FILES = {
    "maintainer_project.yml": "maintainer_project.schema.json",
    "profiles.yml": "profiles.schema.json",
    "tables/example.yml": "manifest.schema.json",
}


@pytest.mark.parametrize("name", sorted(generate_schemas()))
def test_checked_in_schemas_are_current(name: str) -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.project.project_schema import
    write_schemas; write_schemas(Path("schemas"))'"""
    checked_in = (REPO / "schemas" / name).read_text(encoding="utf-8")

    assert checked_in == schema_text(generate_schemas()[name])


@pytest.mark.parametrize(("template_file", "schema_name"), sorted(TEMPLATE_FILES.items()))
def test_template_files_name_and_satisfy_their_schema(template_file: str, schema_name: str) -> None:
    text = (TEMPLATE / template_file).read_text(encoding="utf-8")
    first_line = text.splitlines()[0]
    assert first_line.startswith("# yaml-language-server: $schema=")
    assert first_line.endswith(f"schemas/{schema_name}")
    schema = json.loads((REPO / "schemas" / schema_name).read_text(encoding="utf-8"))

    jsonschema.validate(yaml.safe_load(text), schema)


def test_schema_rejects_unknown_options_and_accepts_templates() -> None:
    schema = generate_schemas()["manifest.schema.json"]
    table = {"name": "t", "path": "/t", "clean": {"commits_retained": "{{ var('n') }}"}}
    jsonschema.validate({"version": 1, "tables": [table]}, schema)

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "tables": [{**table, "clean": {"comits_retained": 3}}]}, schema)
