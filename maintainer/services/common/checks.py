"""Checks of single values of an approved node (paths, file names, instants), shared by the
services' ``validate`` (the up-front check of a whole plan) and their applies."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from maintainer.hudi.filenames import BaseFileName, LogFileName, is_data_file_name
from maintainer.hudi.instant import is_instant_time, parse_instant_file_name
from maintainer.plan.model import NodePlan, PlannedAction
from maintainer.services.base import Check

METADATA_TABLE_PATH = ".hoodie/metadata"
DROP_METADATA_TABLE = "drop_metadata_table"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def _isabsolute(path: str) -> bool:
    """A local absolute path or a URI (``file:/``, ``s3://``...)."""
    return path.startswith("/") or _SCHEME.match(path) is not None


def relative_path_problem(path: object) -> str | None:
    """Why ``path`` is not a path inside the table (None: it is: relative, normalized, not
    under ``.hoodie/``)."""
    if not isinstance(path, str) or not path:
        return "not a path"
    if _isabsolute(path):
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


# -- actions ----------------------------------------------------------------------------------


def action_label(action: PlannedAction) -> str:
    return f"action {action.kind} {action.target}"


def as_list(value: object) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def drop_metadata_check(action: PlannedAction) -> Check:
    ok = action.target == METADATA_TABLE_PATH
    why = None if ok else f"not the metadata table ({METADATA_TABLE_PATH})"
    return action_label(action), action.target, why


def unknown_action(action: PlannedAction, service: str) -> Check:
    return action_label(action), action.kind, f"not an action of the {service} service"


def absolute(table_uri: str, path: object) -> str:
    text = str(path)
    if _isabsolute(text):
        return text
    return f"{table_uri.rstrip('/')}/{text}"


def instant_actions(kind: str) -> Callable[[NodePlan, str], Iterator[Check]]:
    def validate(node: NodePlan, table_uri: str) -> Iterator[Check]:
        for action in node.actions:
            if action.kind == DROP_METADATA_TABLE:
                yield drop_metadata_check(action)
            elif action.kind != kind:
                yield unknown_action(action, node.service)
            else:
                yield action_label(action), action.target, instant_problem(action.target)
                for name in as_list(action.details.get("state_files", [])):
                    ok = isinstance(name, str) and parse_instant_file_name(name) is not None
                    yield action_label(action), name, None if ok else "not an instant file name"

    return validate
