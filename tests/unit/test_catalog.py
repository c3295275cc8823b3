"""The service catalog is derived from the registered declarations: the project model and the
graph agree with it, and declarations that contradict each other are refused."""

import importlib

import pytest

from maintainer.artifact.model import DeleteFile
from maintainer.catalog import ActionLabel, Catalog, CatalogError, ServiceDeclaration, installed, installing
from maintainer.project.models import project_models
from maintainer.project.settings_types import FrozenModel
from maintainer.services.registry import registered_services


def test_every_manifest_block_is_a_field_of_the_project_models() -> None:
    models = project_models()
    for model in (models.defaults, models.entry, models.spec):
        assert set(installed().blocks) <= set(model.model_fields), model.__name__


def test_names_and_action_kinds_are_unique() -> None:
    catalog = installed()
    assert len(catalog.by_name) == len(catalog.services) == len(catalog.order)
    kinds = [label.kind for label in catalog.action_labels]
    assert len(kinds) == len(set(kinds))
    assert len({label.rank for label in catalog.action_labels}) == len(kinds)


def test_the_installed_catalog_is_the_registry_s_declarations_in_its_order() -> None:
    assert installed().order == tuple(service.declaration.name for service in registered_services())
    assert installed().order == (
        "rollback", "compaction", "clustering", "savepoint_create", "clean", "metadata", "orphan_files",
        "archive", "savepoint_delete",
    )  # fmt: skip
    assert installed().blocks == (
        "rollback", "compaction", "clustering", "clean", "metadata", "orphan_files", "archive", "savepoints"
    )  # fmt: skip


def test_declarations_that_contradict_each_other_are_refused() -> None:
    clash = ServiceDeclaration(
        "twin", "twin", (ActionLabel("delete_file", "f", "fs", 99),), records=(DeleteFile,)
    )
    with pytest.raises(CatalogError, match="action kind declared twice: delete_file"):
        installed().extended(clash)
    with pytest.raises(CatalogError, match="without both a record and a label: delete_file"):
        installed().extended(ServiceDeclaration("unlabelled", "x", (), records=(DeleteFile,)))
    with pytest.raises(CatalogError, match="service name declared twice: clean"):
        installed().extended(ServiceDeclaration("clean", "x", ()))


class TouchSettings(FrozenModel):
    enabled: bool = True


def test_a_block_without_settings_is_refused() -> None:
    with pytest.raises(CatalogError, match="the touch block needs its settings declared by exactly one"):
        installed().extended(ServiceDeclaration("touch", "touch", ()))


def test_a_catalog_installed_for_a_block_is_undone_after_it() -> None:
    before = installed()
    extra = ServiceDeclaration("touch", "touch", (), settings=TouchSettings)
    with installing(before.extended(extra)) as catalog:
        assert installed() is catalog
        assert installed().order[-1] == "touch"
    assert installed() is before
    assert isinstance(before, Catalog)


def test_every_service_declares_itself_in_its_own_folder() -> None:
    for service in registered_services():
        package = type(service).__module__.rpartition(".")[0]
        declarations = vars(importlib.import_module(f"{package}.declaration")).values()
        assert any(value is service.declaration for value in declarations), package


def test_every_settings_model_is_in_its_service_s_own_folder() -> None:
    """One source per fact: a block's settings (defaults, Hudi's names) and its rules are its
    service's ``settings.py``; the project floor holds only the shared vocabulary."""
    for service in registered_services():
        declaration = service.declaration
        package = type(service).__module__.rpartition(".")[0]
        for hook in (declaration.settings, declaration.table_rules):
            if hook is not None:
                assert hook.__module__ == f"{package}.settings", (declaration.name, hook)


def test_the_catalog_lists_every_service_s_table_rules_and_inferred_options() -> None:
    catalog = installed()
    owners = [s.name for s in catalog.services if s.table_rules is not None]
    assert owners == ["compaction", "clustering", "savepoint_create", "archive"]
    assert catalog.table_rules == tuple(catalog.by_name[name].table_rules for name in owners)
    assert catalog.inferred == {
        "clean.policy": ("file_versions_retained", "hours_retained", "commits_retained")
    }
