"""The up-front check of an approved clean node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from maintainer.plan.model import NodePlan
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    DROP_METADATA_TABLE,
    action_label,
    as_list,
    data_file_problem,
    drop_metadata_check,
    instant_problem,
    relative_path_problem,
    unknown_action,
)


def validate_clean(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = action_label(action)
        if action.kind == "delete_file":
            yield label, action.target, data_file_problem(action.target)
        elif action.kind == "delete_partition":
            yield label, action.target, relative_path_problem(action.target)
        elif action.kind == "finish_pending_clean":
            yield label, action.target, instant_problem(action.target)
            for path in as_list(action.details.get("paths", [])):
                yield label, path, data_file_problem(path)
        elif action.kind == DROP_METADATA_TABLE:
            yield drop_metadata_check(action)
        else:
            yield unknown_action(action, node.service)
    for item in as_list(node.effect.get("delete_files", [])):
        path = item.get("path") if isinstance(item, Mapping) else item
        yield "effect delete_files", path, data_file_problem(path)
