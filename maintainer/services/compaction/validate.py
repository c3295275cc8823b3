"""The up-front check of an approved compaction node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import (
    CompactionEffect,
    CompactSlice,
    ExecutePendingCompaction,
    NodePlan,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    base_name_problem,
    effect_check,
    instant_check,
    instant_problem,
    log_name_problem,
    other_action_check,
    partition_problem,
    relative_path_problem,
)


def _slice_checks(action: CompactSlice) -> Iterator[Check]:
    """The partition, base instant, base file and log files of a slice to compact."""
    label = action_label(action)
    yield label, action.target, relative_path_problem(action.target)
    yield label, action.partition, partition_problem(action.partition)
    yield label, action.base_instant, instant_problem(action.base_instant)
    if action.base_file is not None:
        yield label, action.base_file.name, base_name_problem(action.base_file.name)
    for log in action.log_files:
        yield label, log.name, log_name_problem(log.name)


def validate_compaction(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case ExecutePendingCompaction():
                yield instant_check(action)
            case CompactSlice():
                yield from _slice_checks(action)
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, CompactionEffect)
