"""The orphan-files service as the catalog knows it: its action kind, the review's rules for
its manifest block and its part of apply's closing line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from maintainer.artifact.model import OrphanEffect, RemoveOrphanFile
from maintainer.catalog import ActionLabel, ChangeKind, NodeEffects, ServiceDeclaration, SummaryPart
from maintainer.services.common.change_rules import less_is_destructive, switched_on
from maintainer.services.common.summary_parts import of_service, total
from maintainer.services.orphans.effects import OrphanFilesApplyEffects
from maintainer.services.orphans.settings import OrphanFilesSpec
from maintainer.units import count, human_bytes


def _quarantine_change(before: Any, after: Any) -> tuple[ChangeKind, str]:
    if after is None:
        return ChangeKind.DESTRUCTIVE, "orphan files deleted instead of quarantined"
    return ChangeKind.METADATA, "orphan files quarantined (restorable)"


def _told(nodes: Sequence[NodeEffects]) -> str | None:
    """``3 orphan files removed (1.2 MiB)``."""
    mine = of_service(nodes, "orphan_files")
    files = total(mine, "orphan_files_removed")
    if not files:
        return None
    return f"{count(files, 'orphan file')} removed ({human_bytes(total(mine, 'orphan_bytes_removed'))})"


DECLARATION = ServiceDeclaration(
    "orphan_files",
    "orphan_files",
    (ActionLabel("remove_orphan_file", "orphan file to remove", "orphan files to remove", 17),),
    change_rules={
        "enabled": switched_on("orphan_files"),
        "min_age": less_is_destructive("orphan file age (min_age)"),
        "quarantine": _quarantine_change,
    },
    summary=(SummaryPart(9, _told),),
    settings=OrphanFilesSpec,
    records=(RemoveOrphanFile,),
    effect=OrphanEffect,
    apply_effects=OrphanFilesApplyEffects,
)
