"""The up-front check of an approved rollback node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import (
    NodePlan,
    RollbackAction,
    RollbackEffect,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    absolute,
    action_label,
    effect_check,
    instant_check,
    instant_problem,
    other_action_check,
)
from maintainer.services.rollback.approval import why_not


def _rollback_paths(action: RollbackAction) -> Iterator[tuple[str, bool]]:
    """(path, deleted?) of every path a rollback action names."""
    yield from ((p, True) for p in action.delete_files)
    yield from ((p, False) for p in action.rollback_blocks_for)
    for request in action.requests:
        yield from ((p, True) for p in request.files_to_be_deleted)
        yield from ((p, False) for p in request.log_blocks_to_be_deleted)


def _rollback_checks(action: RollbackAction, table_uri: str) -> Iterator[Check]:
    label = action_label(action)
    yield instant_check(action)
    if action.rollback_instant is not None:
        yield label, action.rollback_instant, instant_problem(action.rollback_instant)
    for path, deletes in _rollback_paths(action):
        yield label, path, why_not(table_uri, absolute(table_uri, path), action.target, deletes=deletes)


def validate_rollback(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case RollbackAction():
                yield from _rollback_checks(action, table_uri)
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, RollbackEffect)
