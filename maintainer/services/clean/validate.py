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
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, CleanEffect)
