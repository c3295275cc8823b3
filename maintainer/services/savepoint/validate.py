"""The up-front check of approved savepoint nodes (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.plan.model import (
    CreateSavepoint,
    DeleteSavepoint,
    DropMetadataTable,
    NodePlan,
    SyncMetadataTable,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    drop_metadata_check,
    instant_check,
    sync_metadata_check,
    unknown_action,
)


def validate_savepoint_create(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case CreateSavepoint():
                yield instant_check(action)
            case DropMetadataTable():
                yield drop_metadata_check(action)
            case SyncMetadataTable():
                yield sync_metadata_check(action)
            case _:
                yield unknown_action(action, node.service)


def validate_savepoint_delete(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case DeleteSavepoint():
                yield instant_check(action)
            case DropMetadataTable():
                yield drop_metadata_check(action)
            case SyncMetadataTable():
                yield sync_metadata_check(action)
            case _:
                yield unknown_action(action, node.service)
