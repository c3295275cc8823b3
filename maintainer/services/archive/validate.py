"""The up-front check of an approved archive node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import ArchiveInstant, NodePlan
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    instant_check,
    other_action_check,
    state_file_checks,
)


def validate_archive(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        match action:
            case ArchiveInstant():
                yield instant_check(action)
                yield from state_file_checks(action)
            case _:
                yield other_action_check(action, node.service)
