from __future__ import annotations

import json

import fastavro
import fastavro.schema
import pytest

from maintainer.errors import TableFormatError
from maintainer.hudi.payloads import schemas

REQUIRED_TYPES = [
    "HoodieActionInstant",
    "HoodieInstantInfo",
    "HoodieCleanFileInfo",
    "HoodieCleanerPlan",
    "HoodieCleanPartitionMetadata",
    "HoodieCleanMetadata",
    "HoodieCompactionOperation",
    "HoodieCompactionStrategy",
    "HoodieCompactionPlan",
    "HoodieRollbackRequest",
    "HoodieRollbackPlan",
    "HoodieRollbackPartitionMetadata",
    "HoodieRollbackMetadata",
    "HoodieSavepointPartitionMetadata",
    "HoodieSavepointMetadata",
    "HoodieWriteStat",
    "HoodieCommitMetadata",
    "HoodieReplaceCommitMetadata",
    "HoodieSliceInfo",
    "HoodieClusteringGroup",
    "HoodieClusteringStrategy",
    "HoodieClusteringPlan",
    "HoodieRequestedReplaceMetadata",
    "HoodieArchivedMetaEntry",
    "HoodieLSMTimelineInstant",
]

OWN_FILES = sorted(
    entry.name.removesuffix(".avsc")
    for entry in schemas.schema_directory().iterdir()
    if entry.name.endswith(".avsc") and entry.name != "HoodieDeleteRecordList.avsc"
)


def test_schema_files_ship_inside_the_package() -> None:
    assert schemas.schema_directory().is_dir()
    assert set(REQUIRED_TYPES) <= set(OWN_FILES)


@pytest.mark.parametrize("name", OWN_FILES)
def test_each_file_defines_its_own_type_in_hudis_namespace(name: str) -> None:
    definition = schemas.schema_file(name)
    assert definition["type"] == "record"
    assert definition["name"] == name
    assert definition["namespace"] == "org.apache.hudi.avro.model"
    assert schemas.field_names(name) == tuple(field["name"] for field in definition["fields"])


@pytest.mark.parametrize("name", OWN_FILES)
def test_self_contained_schema_defines_each_named_type_once(name: str) -> None:
    schema = schemas.self_contained_schema(name)
    names = schemas.defined_names(schema)
    assert names[0] == f"org.apache.hudi.avro.model.{name}"
    assert len(names) == len(set(names)), f"redefined: {[n for n in names if names.count(n) > 1]}"
    text = schemas.schema_text(name)
    assert json.loads(text) == schema
    fastavro.parse_schema(json.loads(text))


def test_later_uses_refer_to_the_first_definition_by_full_name() -> None:
    schema = schemas.self_contained_schema("HoodieCleanMetadata")
    fields = {field["name"]: field["type"] for field in schema["fields"]}
    first = fields["partitionMetadata"]["values"]
    assert first["name"] == "HoodieCleanPartitionMetadata" and "namespace" not in first
    assert fields["bootstrapPartitionMetadata"] == [
        "null",
        {"type": "map", "values": "org.apache.hudi.avro.model.HoodieCleanPartitionMetadata"},
    ]


def test_archived_meta_entry_shares_write_stat_between_commit_and_replace_metadata() -> None:
    names = schemas.defined_names(schemas.self_contained_schema("HoodieArchivedMetaEntry"))
    assert names.count("org.apache.hudi.avro.model.HoodieWriteStat") == 1
    assert "org.apache.hudi.avro.model.HoodieReplaceCommitMetadata" in names


def test_inliner_deduplicates_a_fully_expanded_schema() -> None:
    parsed = fastavro.parse_schema(schemas.self_contained_schema("HoodieArchivedMetaEntry"))
    expanded = fastavro.schema.expand_schema(parsed)
    assert len(schemas.defined_names(expanded)) > len(set(schemas.defined_names(expanded)))
    inlined = schemas.inline_named_types(expanded)
    names = schemas.defined_names(inlined)
    assert len(names) == len(set(names))
    fastavro.parse_schema(inlined)


def test_inliner_keeps_a_foreign_namespace_and_qualifies_references() -> None:
    schema = {
        "type": "record",
        "name": "Outer",
        "namespace": "a.b",
        "fields": [
            {"name": "x", "type": {"type": "record", "name": "In", "namespace": "c", "fields": []}},
            {"name": "y", "type": "c.In"},
            {"name": "z", "type": {"type": "fixed", "name": "F", "size": 2}},
            {"name": "w", "type": "F"},
        ],
    }
    inlined = schemas.inline_named_types(schema)
    assert inlined["namespace"] == "a.b"
    types = [field["type"] for field in inlined["fields"]]
    assert types[0]["namespace"] == "c" and types[1] == "c.In"
    assert "namespace" not in types[2] and types[3] == "a.b.F"
    assert schemas.defined_names(inlined) == ["a.b.Outer", "c.In", "a.b.F"]


def test_unknown_type_is_a_table_format_error() -> None:
    with pytest.raises(TableFormatError, match="HoodieNoSuchThing"):
        schemas.self_contained_schema("HoodieNoSuchThing")


def _first_branch(schema: object) -> object:
    branch = schema[0] if isinstance(schema, list) else schema
    return branch["type"] if isinstance(branch, dict) else branch


DEFAULT_CHECKS = {
    "null": lambda value: value is None,
    "int": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "map": lambda value: isinstance(value, dict),
}


@pytest.mark.parametrize("name", OWN_FILES)
def test_defaults_match_the_first_union_branch_as_javas_parser_demands(name: str) -> None:
    for field in schemas.schema_file(name)["fields"]:
        if "default" in field:
            kind = _first_branch(field["type"])
            assert DEFAULT_CHECKS[str(kind)](field["default"]), f"{name}.{field['name']}"
