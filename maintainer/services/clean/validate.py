"""The up-front check of an approved clean node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import (
    CleanEffect,
    DeleteFile,
    DeletePartition,
    FinishPendingClean,
    NodePlan,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    data_file_problem,
    effect_check,
    instant_check,
    other_action_check,
    partition_problem,
    relative_path_problem,
)


def validate_clean(node: NodePlan, table_uri: str) -> Iterator[Check]:
    """Every action's checks; a file to delete (one per file of the clean: 50,000 in a large
    one) is labelled only when it fails one."""
    for action in node.actions:
        if isinstance(action, DeleteFile):
            file_problem = data_file_problem(action.target)
            in_partition = partition_problem(action.partition)
            if file_problem is not None or in_partition is not None:
                yield action_label(action), action.target, file_problem
                yield action_label(action), action.partition, in_partition
            continue
        label = action_label(action)
        match action:
            case DeletePartition():
                yield label, action.target, relative_path_problem(action.target)
            case FinishPendingClean():
                yield instant_check(action)
                for path in action.paths:
                    yield label, path, data_file_problem(path)
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, CleanEffect)
