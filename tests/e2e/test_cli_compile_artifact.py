"""``maintainer compile`` writes a dbt-shaped target/manifest.json that validates against
schemas/manifest_json.v1.json, byte for byte as the format v1 was written before the file had a
model (tests/e2e/expected/manifest_json_v1.json)."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from maintainer.catalog import installed
from maintainer.cli import main
from maintainer.graph.manifest import MANIFEST_SCHEMA_FILE, MANIFEST_SCHEMA_VERSION
from maintainer.graph.state import table_checksum
from maintainer.project import load_project
from tests.unit.project.projects import write_project

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / MANIFEST_SCHEMA_FILE
EXPECTED_V1 = Path(__file__).resolve().parent / "expected" / "manifest_json_v1.json"
"""The manifest.json of EVERY_SERVICE as the hand-built writer wrote it (before the model), with
its three per-run values replaced by placeholders (VARYING)."""
VARYING = ("generated_at", "invocation_id", "maintainer_version")
EVERY_SERVICE = """\
    version: 1
    tables:
      - name: raw
        path: /lake/raw
        tags: [bronze]
        archive: {keep_min_commits: 12, keep_max_commits: 20}
        rollback: {min_age: 1h}
      - name: orders
        path: /lake/orders
        depends_on: [raw]
        compaction: {trigger: {max_delta_commits: 3}}
        savepoints: {instants: ['20260101000000000']}
        metadata: {compact_max_delta_commits: 4}
    """
LAKE = """\
    version: 1
    tables:
      - name: raw
        path: /lake/raw
        tags: [bronze]
        archive: {}
      - name: orders
        path: /lake/orders
        depends_on: [raw]
    """


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return write_project(tmp_path / "proj", {"tables/a.yml": None, "tables/lake.yml": LAKE})


def compile_manifest(project: Path, *args: str) -> dict[str, Any]:
    assert main(["compile", "--project-dir", str(project), *args]) == 0
    data: dict[str, Any] = json.loads((project / "target" / "manifest.json").read_text())
    return data


def test_manifest_json_is_dbt_shaped_and_valid(project: Path) -> None:
    manifest = compile_manifest(project)

    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(manifest)
    assert schema["$id"] == MANIFEST_SCHEMA_VERSION

    metadata = manifest["metadata"]
    assert metadata["maintainer_schema_version"] == MANIFEST_SCHEMA_VERSION
    assert (metadata["project_name"], metadata["profile"], metadata["target"]) == ("demo", "demo", "dev")
    assert uuid.UUID(metadata["invocation_id"]).version == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", metadata["generated_at"])
    assert datetime.fromisoformat(metadata["generated_at"].replace("Z", "+00:00")).utcoffset() is not None

    nodes = manifest["nodes"]
    assert set(nodes) == {"table.demo.raw.clean", "table.demo.raw.archive", "table.demo.orders.clean"}
    orders = nodes["table.demo.orders.clean"]
    assert orders["name"] == "orders.clean" and orders["unique_id"] == "table.demo.orders.clean"
    assert (orders["table"], orders["service"], orders["original_file_path"]) == (
        "orders",
        "clean",
        "tables/lake.yml",
    )
    assert orders["depends_on"] == {"nodes": ["table.demo.raw.archive"]}
    assert nodes["table.demo.raw.clean"]["tags"] == ["bronze"]

    spec = load_project(project).table("raw")
    assert manifest["tables"]["raw"]["checksum"] == {"name": "sha256", "checksum": table_checksum(spec)}
    assert manifest["tables"]["raw"]["spec"]["archive"] is not None
    assert manifest["graph"]["order"][0] == "raw.clean"


def test_the_file_is_byte_for_byte_what_format_v1_wrote(project: Path) -> None:
    """Every service format v1 knew, tags, depends_on, sources and checksums: the model writes
    the same bytes as the hand-built dict it replaced (only the per-run values differ, and are
    masked); a service added since (orphan_files, clustering) is left out of a table that does not
    set it."""
    every = write_project(project.parent / "every", {"tables/lake.yml": EVERY_SERVICE})
    assert main(["compile", "--project-dir", str(every)]) == 0
    text = (every / "target" / "manifest.json").read_text(encoding="utf-8")
    metadata = json.loads(text)["metadata"]
    for field in VARYING:
        assert text.count(json.dumps(metadata[field])) == 1
        text = text.replace(json.dumps(metadata[field]), json.dumps(f"<{field}>"))
    assert text == EXPECTED_V1.read_text(encoding="utf-8")
    services = {node["service"] for node in json.loads(text)["nodes"].values()}
    assert services == set(installed().order) - {"orphan_files", "clustering"}


def test_checksums_are_stable_and_each_compile_has_its_own_invocation(project: Path) -> None:
    first, second = compile_manifest(project), compile_manifest(project)

    assert first["metadata"]["invocation_id"] != second["metadata"]["invocation_id"]
    assert {name: table["checksum"] for name, table in first["tables"].items()} == {
        name: table["checksum"] for name, table in second["tables"].items()
    }


def test_a_selection_keeps_only_selected_nodes_and_their_order(project: Path) -> None:
    manifest = compile_manifest(project, "--select", "orders", "raw.archive")

    assert set(manifest["nodes"]) == {"table.demo.raw.archive", "table.demo.orders.clean"}
    assert manifest["nodes"]["table.demo.orders.clean"]["depends_on"]["nodes"] == ["table.demo.raw.archive"]
    assert set(manifest["tables"]) == {"raw", "orders"}
