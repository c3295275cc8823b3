"""The up-front check of an approved metadata node (before any node of the plan runs): every
action targets the metadata table, its instants are instant times and its files are paths
inside the metadata table."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import (
    METADATA_TABLE_PATH,
    ArchiveMetadataTable,
    CleanMetadataTable,
    CompactMetadataTable,
    MetadataEffect,
    NodePlan,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    effect_check,
    instant_problem,
    other_action_check,
    relative_path_problem,
)

Own = CleanMetadataTable | CompactMetadataTable | ArchiveMetadataTable


def _target_check(action: Own) -> Check:
    ok = action.target == METADATA_TABLE_PATH
    return (
        action_label(action),
        action.target,
        None if ok else f"not the metadata table ({METADATA_TABLE_PATH})",
    )


def validate_metadata(node: NodePlan, table_uri: str) -> Iterator[Check]:
    yield from effect_check(node, MetadataEffect)
    for action in node.actions:
        match action:
            case CompactMetadataTable():
                yield _target_check(action)
                yield action_label(action), action.instant, instant_problem(action.instant)
            case CleanMetadataTable():
                yield _target_check(action)
                for path in action.files:
                    yield action_label(action), path, relative_path_problem(path)
            case ArchiveMetadataTable():
                yield _target_check(action)
                for instant in action.instants:
                    yield action_label(action), instant, instant_problem(instant)
            case _:
                yield other_action_check(action, node.service)
