"""Checks of single values of an approved node (paths, file names, instants), shared by the
services' ``validate`` (the up-front check of a whole plan) and their applies."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TypeVar

from maintainer.artifact.model import (
    METADATA_TABLE_PATH,
    Action,
    ArchiveInstant,
    DropMetadataTable,
    NodePlan,
    SyncMetadataTable,
)
from maintainer.errors import CorruptFileError, MaintainerError, PlanError
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName, is_data_file_name
from maintainer.hudi.instants.instant import is_instant_time, parse_instant_file_name
from maintainer.hudi.metadata.partitions import metadata_partition
from maintainer.services.base import Check

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def _isabsolute(path: str) -> bool:
    """A local absolute path or a URI (``file:/``, ``s3://``...)."""
    return path.startswith("/") or _SCHEME.match(path) is not None


def relative_path_problem(path: object) -> str | None:
    """Why ``path`` is not a path inside the table (None: it is: relative, normalized, not
    under ``.hoodie/``). String tests only: a plan holds a path per file it deletes."""
    if not isinstance(path, str) or not path:
        return "not a path"
    if path.startswith("/") or (":/" in path and _isabsolute(path)):
        return "outside the table (an absolute path)"
    if "//" in path or path.endswith("/") or _has_dot_part(path):
        return "outside the table (not a normalized relative path: '.', '..' or '//')"
    if path == ".hoodie" or path.startswith(".hoodie/"):
        return "inside .hoodie/, not a data path"
    return None


def _has_dot_part(path: str) -> bool:
    """Whether a ``/``-separated part of ``path`` is ``.`` or ``..``."""
    if "." not in path:
        return False
    framed = f"/{path}/"
    return "/./" in framed or "/../" in framed


def data_file_problem(path: object) -> str | None:
    """Why ``path`` is not a Hudi data file (base or log) inside the table."""
    problem = relative_path_problem(path)
    if problem is not None:
        return problem
    assert isinstance(path, str)
    return None if is_data_file_name(path.rsplit("/", 1)[-1]) else "not a Hudi data file"


def partition_problem(partition: object) -> str | None:
    """Why ``partition`` is not a partition path ("" is the non-partitioned table's)."""
    if partition == "":
        return None
    return (
        _partition_path_problem(partition) if isinstance(partition, str) else relative_path_problem(partition)
    )


@functools.lru_cache(maxsize=4096)
def _partition_path_problem(partition: str) -> str | None:
    """:func:`relative_path_problem` of a partition, asked once per partition of a plan (every
    file a clean deletes names its partition)."""
    return relative_path_problem(partition)


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


def action_label(action: Action) -> str:
    return f"action {action.kind} {action.target}"


def drop_metadata_check(action: DropMetadataTable) -> Check:
    ok = action.target == METADATA_TABLE_PATH
    why = None if ok else f"not the metadata table ({METADATA_TABLE_PATH})"
    return action_label(action), action.target, why


def sync_metadata_check(action: SyncMetadataTable) -> Check:
    problems = (
        [f"not the metadata table ({METADATA_TABLE_PATH})"] if action.target != METADATA_TABLE_PATH else []
    )
    for name in action.partitions:
        try:
            metadata_partition(name)
        except MaintainerError as exc:
            problems.append(exc.message)
    return action_label(action), action.target, "; ".join(problems) or None


def other_action_check(action: Action, service: str) -> Check:
    """The check of an action that is not the service's own: the metadata table's (drop, sync)
    any service may carry, else an action of another service (refused)."""
    match action:
        case DropMetadataTable():
            return drop_metadata_check(action)
        case SyncMetadataTable():
            return sync_metadata_check(action)
        case _:
            return unknown_action(action, service)


def unknown_action(action: Action, service: str) -> Check:
    return action_label(action), action.kind, f"not an action of the {service} service"


def absolute(table_uri: str, path: str) -> str:
    if _isabsolute(path):
        return path
    return f"{table_uri.rstrip('/')}/{path}"


def instant_check(action: Action) -> Check:
    """The action's target is an instant time."""
    return action_label(action), action.target, instant_problem(action.target)


def state_file_checks(action: ArchiveInstant) -> Iterator[Check]:
    for name in action.state_files:
        try:
            problem = None if parse_instant_file_name(name) is not None else "not an instant file name"
        except CorruptFileError as exc:  # an impossible date, an unknown action
            problem = exc.message
        yield action_label(action), name, problem


# -- effects ----------------------------------------------------------------------------------

E = TypeVar("E")


def effect_check(node: NodePlan, kind: type[object]) -> Iterator[Check]:
    """A node with actions carries its service's effect (``kind``)."""
    if node.actions and node.effect is not None and not isinstance(node.effect, kind):
        yield "effect", node.effect.kind, f"not the effect of the {node.service} service"


def effect_of(node: NodePlan, kind: type[E]) -> E:
    """The node's effect, which must be its service's (``validate_plan`` checked it before any
    node ran, so this failing is a bug)."""
    if not isinstance(node.effect, kind):
        raise PlanError(
            f"node {node.id} has no {kind.__name__} in its effect",
            hint="make the plan again with this version of maintainer",
        )
    return node.effect
