"""The whole plan, checked before its first node runs.

The plan id is an unkeyed hash: whoever can edit ``plan.json`` can recompute it. Each executor
re-derives from the table and refuses what does not match, but only when its node runs, after
earlier nodes changed their tables. So apply first checks every node with changes of every
table, without touching any: its service is one maintainer applies, its table is the project's,
every path it names lies inside the table (relative, no ``..``, not under ``.hoodie/`` unless
it is the metadata table it drops), every file it deletes or reads is a Hudi file of the kind
the service expects, every instant is well-formed, and its payloads are byte for byte what the
service builds from the node's body. The executors keep their own checks (defence in depth).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.errors import PlanError
from maintainer.hudi.filenames import BaseFileName, LogFileName, is_data_file_name
from maintainer.hudi.instant import is_instant_time, parse_instant_file_name
from maintainer.plan.artifact import PLAN_FILE, SavedPlan
from maintainer.plan.model import NodePlan, NodeStatus, PlannedAction, TablePlan
from maintainer.project.models import TableSpec
from maintainer.services.rollback.approval import why_not
from maintainer.storage import Storage

METADATA_TABLE_PATH = ".hoodie/metadata"
DROP_METADATA_TABLE = "drop_metadata_table"
MAX_LISTED = 5


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with one node: in which action (or payload), on which path, and why."""

    node: str
    action: str
    path: str
    reason: str

    def __str__(self) -> str:
        return f"node {self.node}, {self.action}: {self.path!r}: {self.reason}"


# -- single values -----------------------------------------------------------------------------

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def _is_absolute(path: str) -> bool:
    """A local absolute path or a URI (``file:/``, ``s3://``...)."""
    return path.startswith("/") or _SCHEME.match(path) is not None


def relative_path_problem(path: object) -> str | None:
    """Why ``path`` is not a path inside the table (None: it is: relative, normalized, not
    under ``.hoodie/``)."""
    if not isinstance(path, str) or not path:
        return "not a path"
    if _is_absolute(path):
        return "outside the table (an absolute path)"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "outside the table (not a normalized relative path: '.', '..' or '//')"
    if parts[0] == ".hoodie":
        return "inside .hoodie/, not a data path"
    return None


def data_file_problem(path: object) -> str | None:
    """Why ``path`` is not a Hudi data file (base or log) inside the table."""
    problem = relative_path_problem(path)
    if problem is not None:
        return problem
    assert isinstance(path, str)
    return None if is_data_file_name(path.rsplit("/", 1)[-1]) else "not a Hudi data file"


def partition_problem(partition: object) -> str | None:
    """Why ``partition`` is not a partition path ("" is the non-partitioned table's)."""
    return None if partition == "" else relative_path_problem(partition)


def instant_problem(text: object) -> str | None:
    return None if isinstance(text, str) and is_instant_time(text) else "not an instant time"


def base_name_problem(name: object) -> str | None:
    if not isinstance(name, str) or "/" in name or BaseFileName.parse(name) is None:
        return "not a Hudi base file name"
    return None


def log_name_problem(name: object) -> str | None:
    if not isinstance(name, str) or "/" in name or LogFileName.parse(name) is None:
        return "not a Hudi log file name"
    return None


# -- per service -------------------------------------------------------------------------------

Check = tuple[str, object, str | None]
"""(where in the node, the value, why it is wrong or None)."""
ServiceValidator = Callable[[NodePlan, str], Iterator[Check]]
"""(node, table URI) -> every value checked."""


def _label(action: PlannedAction) -> str:
    return f"action {action.kind} {action.target}"


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _drop_metadata(action: PlannedAction) -> Check:
    ok = action.target == METADATA_TABLE_PATH
    return _label(action), action.target, None if ok else f"not the metadata table ({METADATA_TABLE_PATH})"


def _unknown(action: PlannedAction, service: str) -> Check:
    return _label(action), action.kind, f"not an action of the {service} service"


def validate_clean(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = _label(action)
        if action.kind == "delete_file":
            yield label, action.target, data_file_problem(action.target)
        elif action.kind == "delete_partition":
            yield label, action.target, relative_path_problem(action.target)
        elif action.kind == "finish_pending_clean":
            yield label, action.target, instant_problem(action.target)
            for path in _list(action.details.get("paths", [])):
                yield label, path, data_file_problem(path)
        elif action.kind == DROP_METADATA_TABLE:
            yield _drop_metadata(action)
        else:
            yield _unknown(action, node.service)
    for item in _list(node.effect.get("delete_files", [])):
        path = item.get("path") if isinstance(item, Mapping) else item
        yield "effect delete_files", path, data_file_problem(path)


def _absolute(table_uri: str, path: object) -> str:
    text = str(path)
    if _is_absolute(text):
        return text
    return f"{table_uri.rstrip('/')}/{text}"


def _rollback_paths(action: PlannedAction) -> Iterator[tuple[object, bool]]:
    """(path, deleted?) of every path a rollback action names."""
    details = action.details
    yield from ((p, True) for p in _list(details.get("delete_files", [])))
    yield from ((p, False) for p in _list(details.get("rollback_blocks_for", [])))
    for request in _list(details.get("requests", [])):
        if not isinstance(request, Mapping):
            yield request, True
            continue
        yield from ((p, True) for p in _list(request.get("files_to_be_deleted", [])))
        yield from ((p, False) for p in dict(request.get("log_blocks_to_be_deleted") or {}))


def validate_rollback(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = _label(action)
        if action.kind == DROP_METADATA_TABLE:
            yield _drop_metadata(action)
            continue
        yield label, action.target, instant_problem(action.target)
        rollback_instant = action.details.get("rollback_instant")
        if rollback_instant is not None:
            yield label, rollback_instant, instant_problem(rollback_instant)
        for path, deletes in _rollback_paths(action):
            reason = why_not(table_uri, _absolute(table_uri, path), action.target, deletes=deletes)
            yield label, path, reason


def _slice_checks(label: str, op: Mapping[str, Any]) -> Iterator[Check]:
    """The partition, base file and log files of a compacted slice (action details or effect)."""
    yield label, op.get("partition"), partition_problem(op.get("partition"))
    base = op.get("base_file")
    if base is not None:
        name = base.get("name") if isinstance(base, Mapping) else base
        yield label, name, base_name_problem(name)
    for log in _list(op.get("log_files", [])):
        name = log.get("name") if isinstance(log, Mapping) else log
        yield label, name, log_name_problem(name)


def validate_compaction(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = _label(action)
        if action.kind == "execute_pending_compaction":
            yield label, action.target, instant_problem(action.target)
        elif action.kind == "compact_slice":
            yield label, action.target, relative_path_problem(action.target)
            yield from _slice_checks(label, action.details)
        elif action.kind == DROP_METADATA_TABLE:
            yield _drop_metadata(action)
        else:
            yield _unknown(action, node.service)
    for op in _list(node.effect.get("operations", [])):
        operation = op if isinstance(op, Mapping) else {}
        yield (
            "effect operations",
            operation.get("base_instant"),
            instant_problem(operation.get("base_instant")),
        )
        yield from _slice_checks("effect operations", operation)


def _instant_actions(kind: str) -> ServiceValidator:
    def validate(node: NodePlan, table_uri: str) -> Iterator[Check]:
        for action in node.actions:
            if action.kind == DROP_METADATA_TABLE:
                yield _drop_metadata(action)
            elif action.kind != kind:
                yield _unknown(action, node.service)
            else:
                yield _label(action), action.target, instant_problem(action.target)
                for name in _list(action.details.get("state_files", [])):
                    ok = isinstance(name, str) and parse_instant_file_name(name) is not None
                    yield _label(action), name, None if ok else "not an instant file name"

    return validate


VALIDATORS: Mapping[str, ServiceValidator] = {
    "clean": validate_clean,
    "rollback": validate_rollback,
    "compaction": validate_compaction,
    "archive": _instant_actions("archive_instant"),
    "savepoint_create": _instant_actions("create_savepoint"),
    "savepoint_delete": _instant_actions("delete_savepoint"),
}


# -- a node, a plan ------------------------------------------------------------------------------


def payload_problems(
    node: NodePlan, storage: Storage, plan_id: str, stored: Mapping[str, bytes]
) -> list[Problem]:
    """The node's payloads are exactly what its service builds from the node's body."""
    from maintainer.services.registry import service_entry

    entry = service_entry(node.service)
    if entry is None:
        return []
    rebuilt = entry.payloads(node, storage, plan_id)
    problems = [
        Problem(node.id, f"payload {name}", name, "not named by the node's body")
        for name in sorted(set(node.payloads) - set(rebuilt))
    ]
    for name, data in sorted(rebuilt.items()):
        if name not in node.payloads or stored.get(name) != data:
            problems.append(
                Problem(node.id, f"payload {name}", name, "does not match what the node's body builds")
            )
    return problems


def node_problems(node: NodePlan, table: TablePlan, plan_id: str, payloads: Mapping[str, bytes],
                  storage_options: Mapping[str, Any]) -> list[Problem]:  # fmt: skip
    """Everything wrong with one node with changes (empty: it may run)."""
    validator = VALIDATORS.get(node.service)
    if validator is None:
        return [Problem(node.id, "service", node.service, "not a service this maintainer applies")]
    storage = Storage(table.path, storage_options)
    table_uri = storage.uri("")
    problems = [
        Problem(node.id, where, str(value), reason)
        for where, value, reason in validator(node, table_uri)
        if reason is not None
    ]
    return problems + payload_problems(node, storage, plan_id, payloads)


def _table_problems(table: TablePlan, specs: Mapping[str, TableSpec] | None) -> list[Problem]:
    if specs is None:
        return []
    spec = specs.get(table.name)
    if spec is None:
        return [Problem(table.name, "table", table.path, "not a table of the project")]
    if spec.path.rstrip("/") != table.path.rstrip("/"):
        return [Problem(table.name, "table", table.path, f"the project has the table at {spec.path}")]
    return []


def plan_problems(saved: SavedPlan, specs: Mapping[str, TableSpec] | None = None,
                  storage_options: Mapping[str, Any] | None = None) -> list[Problem]:  # fmt: skip
    """Everything wrong with the plan's nodes with changes, table by table."""
    problems: list[Problem] = []
    for table in saved.plan.tables:
        changing = [node for node in table.nodes if node.status is NodeStatus.CHANGES]
        if not changing:
            continue
        problems += _table_problems(table, specs)
        for node in changing:
            problems += node_problems(node, table, saved.plan_id, saved.payloads, storage_options or {})
    return problems


def validate_plan(saved: SavedPlan, specs: Mapping[str, TableSpec] | None = None,
                  storage_options: Mapping[str, Any] | None = None) -> None:  # fmt: skip
    """PlanError naming every problem (up to a few) before anything runs."""
    problems = plan_problems(saved, specs, storage_options)
    if not problems:
        return
    listed = "; ".join(str(p) for p in problems[:MAX_LISTED])
    more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
    raise PlanError(
        f"the plan is refused before any node runs, no table was touched: {listed}{more}",
        where=str(saved.directory / PLAN_FILE),
        hint="plans are applied as reviewed: make the plan again and review it",
    )
