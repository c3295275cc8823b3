"""The up-front check of an approved orphan-files node (before any node of the plan runs):
every file inside the table, a data file or a marker, never ``.hoodie/`` otherwise; the
quarantine one folder of ours under ``.hoodie/``."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ValidationError

from maintainer.artifact.model import NodePlan, OrphanEffect, RemoveOrphanFile
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    data_file_problem,
    effect_check,
    other_action_check,
    relative_path_problem,
)
from maintainer.services.orphans.settings import QUARANTINE_ROOT, OrphanFilesSpec


def orphan_path_problem(path: object, orphan: str) -> str | None:
    """Why ``path`` is not a file the orphan node may remove (None: it may)."""
    if orphan != "markers":
        return data_file_problem(path)
    if not isinstance(path, str) or not path.startswith(f"{MARKERS_DIR}/"):
        return f"a marker outside {MARKERS_DIR}/"
    return relative_path_problem(path.removeprefix(f"{MARKERS_DIR}/"))


def quarantine_problem(folder: object) -> str | None:
    if folder is None:
        return None
    prefix = f"{QUARANTINE_ROOT}/"
    if not isinstance(folder, str) or not folder.startswith(prefix):
        return f"not a folder under {prefix}"
    try:
        OrphanFilesSpec(quarantine=folder.removeprefix(prefix))
    except ValidationError as exc:
        return exc.errors()[0]["msg"]
    return None


def validate_orphan_files(node: NodePlan, table_uri: str) -> Iterator[Check]:
    for action in node.actions:
        label = action_label(action)
        match action:
            case RemoveOrphanFile():
                yield label, action.target, orphan_path_problem(action.target, action.orphan)
                yield label, action.size, None if action.size >= 0 else "a negative size"
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, OrphanEffect)
    if node.actions and node.effect is None:
        yield "effect", None, "an orphan-files node with files to remove says where they go (its effect)"
    if isinstance(node.effect, OrphanEffect):
        yield "effect.quarantine", node.effect.quarantine, quarantine_problem(node.effect.quarantine)
