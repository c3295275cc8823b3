"""manifest.json records: what is written reads back equal, and a file out of shape (a wrong
type, an unknown field, a missing field, an unknown service, a bad checksum) is refused with an
error naming the file, the field and what to do; the checked-in schema is the generated one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from maintainer.errors import MaintainerError, StorageError, UsageError
from maintainer.graph.manifest import (
    MANIFEST_SCHEMA_FILE,
    MANIFEST_SCHEMA_VERSION,
    Applied,
    AppliedState,
    CompiledManifest,
    dump_record,
    legacy_state,
    manifest_text,
    parse_baseline,
    parse_compiled,
    parse_legacy_applied,
)
from maintainer.graph.manifest_schema import manifest_json_schema
from maintainer.project.project_schema import schema_text
from tests.support.artifacts import SCHEMAS
from tests.unit.graph.manifests import applied_state, compiled
from tests.unit.graph.specs import spec

SPECS = (spec("raw", tags=("bronze",)), spec("orders", depends_on=("raw",)))
APPLIED = Applied("f" * 64, "2026-11-28T02:00:00.000Z", "20261128020000000Z-run")
HINT = "compile it again"


def read(text: str, error: type[MaintainerError] = UsageError) -> CompiledManifest:
    return parse_compiled(text, what="m.json", where="state/m.json", error=error, hint=HINT)


def written() -> dict[str, Any]:
    return dump_record(compiled(SPECS))


def test_the_checked_in_schema_is_current() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.graph.manifest import
    MANIFEST_SCHEMA_FILE; from maintainer.graph.manifest_schema import manifest_json_schema; from
    maintainer.project.project_schema import schema_text; Path("schemas", MANIFEST_SCHEMA_FILE).write_text(
    schema_text(manifest_json_schema()))'"""
    checked_in = (SCHEMAS / MANIFEST_SCHEMA_FILE).read_text(encoding="utf-8")
    assert checked_in == schema_text(manifest_json_schema())
    assert manifest_json_schema()["$id"] == MANIFEST_SCHEMA_VERSION


def test_every_field_is_required_and_no_other_allowed() -> None:
    schema = manifest_json_schema()
    for record in (schema, *schema["$defs"].values()):
        if record.get("type") == "object" and "additionalProperties" in record:
            assert record["additionalProperties"] is False
            assert set(record["required"]) == set(record["properties"])


def test_what_is_written_reads_back_equal_and_satisfies_the_schema() -> None:
    manifest = compiled(SPECS)
    text = manifest_text(dump_record(manifest))
    assert read(text) == manifest
    assert manifest_text(dump_record(read(text))) == text
    data = json.loads(text)
    jsonschema.Draft202012Validator(manifest_json_schema()).validate(data)
    edge = data["graph"]["edges"][0]
    assert set(edge) == {"from", "to", "kind"}  # the file's names, not the record's from_


def test_an_applied_state_reads_back_equal_and_a_baseline_is_either_file() -> None:
    state = applied_state(SPECS, APPLIED)
    text = manifest_text(dump_record(state))
    assert parse_baseline(text, what="m", where="w", error=StorageError, hint=HINT) == state
    manifest = compiled(SPECS)
    assert parse_baseline(manifest_text(dump_record(manifest)), what="m", where="w", error=StorageError,
                          hint=HINT) == manifest  # fmt: skip


def test_an_older_layout_becomes_a_state_applied_by_its_last_apply() -> None:
    applied = parse_legacy_applied('{"plan_id": "p", "applied_at": "then"}', what="a", where="w",
                                   error=StorageError, hint=HINT)  # fmt: skip
    state = legacy_state(compiled(SPECS), applied)
    assert isinstance(state, AppliedState) and state.applied == Applied("p", "then", "")
    assert {name: table.applied for name, table in state.tables.items()} == {
        "raw": applied,
        "orders": applied,
    }
    with pytest.raises(StorageError, match="applied_at: missing"):
        parse_legacy_applied('{"plan_id": "p"}', what="a", where="w", error=StorageError, hint=HINT)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        for key in parents:
            data = data[key]
        data[last] = value

    return edit


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        for key in parents:
            data = data[key]
        del data[last]

    return edit


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (_set("metadata/threads", "4"), "metadata.threads: Input should be a valid integer"),
        (_set("metadata/threads", 0), "metadata.threads: Input should be greater than or equal to 1"),
        (_set("metadata/surprise", 1), "metadata.surprise: unknown field"),
        (_drop("metadata/project_name"), "metadata.project_name: missing"),
        (
            _set("metadata/maintainer_schema_version", "https://x/v9.json"),
            "metadata.maintainer_schema_version",
        ),
        (_drop("tables/raw/checksum"), "tables.raw.checksum: missing"),
        (_set("tables/raw/checksum/checksum", "a"), "tables.raw.checksum.checksum: String should match"),
        (_set("tables/raw/checksum/name", "md5"), "tables.raw.checksum.name: Input should be 'sha256'"),
        (_set("tables/raw/sources/clean.commits_retained", 7), "tables.raw.sources.clean.commits_retained"),
        (_drop("tables/raw/spec/path"), "tables.raw.spec: the spec has no str 'path'"),
        (_set("tables/raw/spec/line", "1"), "tables.raw.spec: the spec has no int 'line'"),
        (_set("nodes/table.demo.raw.clean/service", "vacuum"), "unknown service 'vacuum'"),
        (_set("nodes/table.demo.raw.clean/mor_only", "no"), "mor_only: Input should be a valid boolean"),
        (_set("nodes/table.demo.raw.clean/tags", "bronze"), "tags: Input should be a valid array"),
        (_drop("graph/order"), "graph.order: missing"),
        (_set("graph/edges", [{"from": "a", "to": "b", "kind": "maybe"}]), "graph.edges.0.kind"),
        (_drop("nodes"), "nodes: missing"),
    ],
)
def test_a_file_out_of_shape_is_refused_naming_the_field(
    edit: Callable[[dict[str, Any]], None], problem: str
) -> None:
    data = written()
    edit(data)
    with pytest.raises(UsageError) as caught:
        read(json.dumps(data))
    error = caught.value
    assert "m.json is not a maintainer manifest.json" in error.message and problem in error.message
    assert error.where == "state/m.json" and error.hint == HINT
    with pytest.raises(jsonschema.ValidationError):  # the schema refuses it too
        jsonschema.validate(data, manifest_json_schema())


def test_invalid_json_and_the_wrong_error_class_are_named() -> None:
    with pytest.raises(StorageError, match=r"m\.json is not valid JSON") as caught:
        read("{", error=StorageError)
    assert caught.value.where == "state/m.json"
    with pytest.raises(UsageError, match=r"the file: Input should be an object"):
        read("[]")


def test_many_problems_are_counted_not_all_listed() -> None:
    with pytest.raises(UsageError, match=r"\(and \d+ more\)"):
        read(json.dumps({"metadata": {}, "nodes": {}, "tables": {}, "graph": {}}))
