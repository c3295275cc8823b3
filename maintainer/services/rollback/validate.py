"""The up-front check of an approved rollback node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from maintainer.plan.model import NodePlan, PlannedAction
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    DROP_METADATA_TABLE,
    absolute,
    action_label,
    as_list,
    drop_metadata_check,
    instant_problem,
)
from maintainer.services.rollback.approval import why_not


def _rollback_paths(action: PlannedAction) -> Iterator[tuple[object, bool]]:
    """(path, deleted?) of every path a rollback action names."""
    details = action.details
    yield from ((p, True) for p in as_list(details.get("delete_files", [])))
    yield from ((p, False) for p in as_list(details.get("rollback_blocks_for", [])))
    for request in as_list(details.get("requests", [])):
        if not isinstance(request, Mapping):
            yield request, True
            continue
        yield from ((p, True) for p in as_list(request.get("files_to_be_deleted", [])))
        yield from ((p, False) for p in dict(request.get("log_blocks_to_be_deleted") or {}))


def validate_rollback(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = action_label(action)
        if action.kind == DROP_METADATA_TABLE:
            yield drop_metadata_check(action)
            continue
        yield label, action.target, instant_problem(action.target)
        rollback_instant = action.details.get("rollback_instant")
        if rollback_instant is not None:
            yield label, rollback_instant, instant_problem(rollback_instant)
        for path, deletes in _rollback_paths(action):
            reason = why_not(table_uri, absolute(table_uri, path), action.target, deletes=deletes)
            yield label, path, reason
