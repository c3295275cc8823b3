"""The up-front check of approved savepoint nodes (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import (
    CreateSavepoint,
    DeleteSavepoint,
    NodePlan,
)
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    instant_check,
    other_action_check,
)


def validate_savepoint_create(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case CreateSavepoint():
                yield instant_check(action)
            case _:
                yield other_action_check(action, node.service)


def validate_savepoint_delete(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case DeleteSavepoint():
                yield instant_check(action)
            case _:
                yield other_action_check(action, node.service)
