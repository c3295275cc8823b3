"""The up-front check of an approved clean node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.plan.model import (
    CleanEffect,
    DeleteFile,
    DeletePartition,
    DropMetadataTable,
    FinishPendingClean,
    NodePlan,
    SyncMetadataTable,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    data_file_problem,
    drop_metadata_check,
    effect_check,
    instant_check,
    partition_problem,
    relative_path_problem,
    sync_metadata_check,
    unknown_action,
)


def validate_clean(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = action_label(action)
        match action:
            case DeleteFile():
                yield label, action.target, data_file_problem(action.target)
                yield label, action.partition, partition_problem(action.partition)
            case DeletePartition():
                yield label, action.target, relative_path_problem(action.target)
            case FinishPendingClean():
                yield instant_check(action)
                for path in action.paths:
                    yield label, path, data_file_problem(path)
            case DropMetadataTable():
                yield drop_metadata_check(action)
            case SyncMetadataTable():
                yield sync_metadata_check(action)
            case _:
                yield unknown_action(action, node.service)
    yield from effect_check(node, CleanEffect)
