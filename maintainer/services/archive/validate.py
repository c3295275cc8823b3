"""The up-front check of an approved archive node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.plan.model import ArchiveInstant, DropMetadataTable, NodePlan, SyncMetadataTable
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    drop_metadata_check,
    instant_check,
    state_file_checks,
    sync_metadata_check,
    unknown_action,
)


def validate_archive(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case ArchiveInstant():
                yield instant_check(action)
                yield from state_file_checks(action)
            case DropMetadataTable():
                yield drop_metadata_check(action)
            case SyncMetadataTable():
                yield sync_metadata_check(action)
            case _:
                yield unknown_action(action, node.service)
