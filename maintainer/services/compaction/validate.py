"""The up-front check of an approved compaction node (before any node of the plan runs)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from maintainer.plan.model import NodePlan
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    DROP_METADATA_TABLE,
    action_label,
    as_list,
    base_name_problem,
    drop_metadata_check,
    instant_problem,
    log_name_problem,
    partition_problem,
    relative_path_problem,
    unknown_action,
)


def _slice_checks(label: str, op: Mapping[str, Any]) -> Iterator[Check]:
    """The partition, base file and log files of a compacted slice (action details or effect)."""
    yield label, op.get("partition"), partition_problem(op.get("partition"))
    base = op.get("base_file")
    if base is not None:
        name = base.get("name") if isinstance(base, Mapping) else base
        yield label, name, base_name_problem(name)
    for log in as_list(op.get("log_files", [])):
        name = log.get("name") if isinstance(log, Mapping) else log
        yield label, name, log_name_problem(name)


def validate_compaction(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = action_label(action)
        if action.kind == "execute_pending_compaction":
            yield label, action.target, instant_problem(action.target)
        elif action.kind == "compact_slice":
            yield label, action.target, relative_path_problem(action.target)
            yield from _slice_checks(label, action.details)
        elif action.kind == DROP_METADATA_TABLE:
            yield drop_metadata_check(action)
        else:
            yield unknown_action(action, node.service)
    for op in as_list(node.effect.get("operations", [])):
        operation = op if isinstance(op, Mapping) else {}
        yield (
            "effect operations",
            operation.get("base_instant"),
            instant_problem(operation.get("base_instant")),
        )
        yield from _slice_checks("effect operations", operation)
