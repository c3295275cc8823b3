"""The apply effects each service declares (``services/<name>/effects.py``): typed, frozen,
refusing a key no service writes, and written as run_results.json's ``adapter_response`` with
the same keys, in the same order, as the apply writes them."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from maintainer.catalog import NodeEffects, installed
from maintainer.services.archive.effects import ArchiveApplyEffects
from maintainer.services.base import ApplyEffects, NodeOutcome, NoEffects
from maintainer.services.clean.effects import CleanApplyEffects, ResolvedInstants
from maintainer.services.clustering.effects import ClusteringApplyEffects
from maintainer.services.common.metadata_table import MetadataTableDropped, with_dropped
from maintainer.services.compaction.effects import CompactionApplyEffects
from maintainer.services.metadata.effects import MetadataApplyEffects
from maintainer.services.orphans.effects import OrphanFilesApplyEffects
from maintainer.services.registry import registered_services
from maintainer.services.rollback.effects import RollbackApplyEffects
from maintainer.services.savepoint.effects import SavepointCreateApplyEffects, SavepointDeleteApplyEffects

CLEAN: dict[str, Any] = {
    "cleans": ["20260101000000000"],
    "files_deleted": 2,
    "bytes_deleted": 20,
    "partitions_deleted": [],
    "files_failed": [],
}


def test_every_service_declares_its_own_apply_effects() -> None:
    declared = {s.declaration.name: s.declaration.apply_effects for s in registered_services()}
    assert declared == {
        "rollback": RollbackApplyEffects,
        "compaction": CompactionApplyEffects,
        "clustering": ClusteringApplyEffects,
        "savepoint_create": SavepointCreateApplyEffects,
        "clean": CleanApplyEffects,
        "metadata": MetadataApplyEffects,
        "orphan_files": OrphanFilesApplyEffects,
        "archive": ArchiveApplyEffects,
        "savepoint_delete": SavepointDeleteApplyEffects,
    }
    assert installed().apply_effects == tuple(declared.values())


@pytest.mark.parametrize("model", installed().apply_effects, ids=lambda m: m.__name__)
def test_a_typod_key_is_refused(model: type[pydantic.BaseModel]) -> None:
    with pytest.raises(pydantic.ValidationError, match="files_delted"):
        model.model_validate({"files_delted": 1})


def test_a_clean_without_a_field_or_with_a_wrong_type_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match="files_failed"):
        CleanApplyEffects.model_validate({k: v for k, v in CLEAN.items() if k != "files_failed"})
    with pytest.raises(pydantic.ValidationError, match="files_deleted"):
        CleanApplyEffects.model_validate({**CLEAN, "files_deleted": "many"})


def test_effects_are_frozen() -> None:
    effects = CleanApplyEffects.model_validate(CLEAN)
    with pytest.raises(pydantic.ValidationError):
        effects.files_deleted = 3


def test_written_in_the_order_the_apply_wrote_them_with_what_it_did_not_set_left_out() -> None:
    effects = CleanApplyEffects.model_validate(CLEAN)
    assert list(effects.to_json()) == list(CLEAN)
    resolved = with_dropped(effects.merged(ResolvedInstants(resolved_instants={})), ("files",))
    assert json.dumps(resolved.to_json()) == json.dumps(
        {"metadata_table_dropped": ["files"], "resolved_instants": {}, **CLEAN}
    )
    assert with_dropped(effects, None) is effects
    assert with_dropped(effects, ()).to_json()["metadata_table_dropped"] == []  # a folder only


def test_a_part_of_another_services_effects_is_refused() -> None:
    effects = CleanApplyEffects.model_validate(CLEAN)
    with pytest.raises(pydantic.ValidationError, match="metadata_compactions"):
        effects.merged(MetadataApplyEffects(metadata_compactions=1))
    assert "resolved_instants" not in MetadataTableDropped.model_fields


def test_the_metadata_nodes_parts_are_there_only_when_they_ran_a_null_archive_file_too() -> None:
    effects = MetadataApplyEffects()
    assert effects.to_json() == {}
    effects = effects.merged(MetadataApplyEffects(metadata_instants_archived=0, metadata_archive_file=None))
    effects = effects.merged(MetadataApplyEffects(metadata_files_cleaned=3, metadata_cleans=("1",)))
    assert json.dumps(effects.to_json()) == json.dumps(
        {
            "metadata_files_cleaned": 3,
            "metadata_cleans": ["1"],
            "metadata_instants_archived": 0,
            "metadata_archive_file": None,
        }
    )


def test_a_node_that_did_nothing_reports_the_empty_object() -> None:
    assert NodeOutcome().effects == NoEffects() and NoEffects().to_json() == {}
    with pytest.raises(pydantic.ValidationError):
        NoEffects.model_validate({"files_deleted": 0})


def example(model: type[ApplyEffects]) -> ApplyEffects:
    """Effects of ``model`` with every field set to something to tell (1, ``["x"]``, ...)."""
    values: dict[str, Any] = {}
    for name, prop in model.model_json_schema()["properties"].items():
        kind = prop.get("type") or next(o["type"] for o in prop["anyOf"] if o["type"] != "null")
        items = prop.get("additionalProperties", {}).get("type")
        values[name] = {
            "integer": 1,
            "string": "x",
            "array": ["x"],
            "object": {"x": 1 if items == "integer" else "y"},
        }[kind]
    return model.model_validate(values)


def test_every_part_of_the_closing_line_is_told_from_the_declared_effects() -> None:
    """The closing line's parts read the effects as run_results.json holds them: each part tells
    something of nodes that did everything their effects can say (a part reading a key no
    service declares would tell nothing)."""
    nodes = [
        NodeEffects(s.name, example(s.apply_effects).to_json())
        for s in installed().services
        if s.apply_effects is not None
    ]
    for service in installed().services:
        for part in service.summary:
            assert part.tell(nodes), f"{service.name}: a part of the closing line tells nothing"
