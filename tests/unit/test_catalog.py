"""The service catalog is the one list of services: the project model and the graph agree with it."""

from maintainer.catalog import ACTION_LABELS, BY_NAME, SERVICE_BLOCKS, SERVICE_ORDER, SERVICES
from maintainer.project.models import DefaultsBlock, TableEntry, TableSpec


def test_every_manifest_block_is_a_field_of_the_project_models() -> None:
    for model in (DefaultsBlock, TableEntry, TableSpec):
        assert set(SERVICE_BLOCKS) <= set(model.model_fields), model.__name__


def test_names_and_action_kinds_are_unique() -> None:
    assert len(BY_NAME) == len(SERVICES) == len(SERVICE_ORDER)
    kinds = [label.kind for label in ACTION_LABELS]
    assert len(kinds) == len(set(kinds))
    assert len({label.rank for label in ACTION_LABELS}) == len(kinds)


def test_the_registry_has_one_service_per_catalog_entry_in_its_order() -> None:
    from maintainer.services.registry import SERVICES as IMPLEMENTED

    assert tuple(service.descriptor.name for service in IMPLEMENTED) == SERVICE_ORDER
