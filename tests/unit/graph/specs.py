"""TableSpecs for graph tests, built directly (no files)."""

from __future__ import annotations

from typing import Any

from maintainer.project import TableSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.savepoint.settings import RollingSavepoints, SavepointsSpec

ALL_BLOCKS: dict[str, Any] = {
    "rollback": RollbackSpec(),
    "compaction": CompactionSpec(),
    "clean": CleanSpec(),
    "archive": ArchiveSpec(),
    "savepoints": SavepointsSpec(rolling=RollingSavepoints()),
}


def spec(
    name: str,
    *,
    depends_on: tuple[str, ...] = (),
    tags: tuple[str, ...] = (),
    manifest: str = "tables/a.yml",
    blocks: tuple[str, ...] = ("rollback", "compaction", "clean", "archive"),
) -> TableSpec:
    return TableSpec.of(
        name=name,
        path=f"/lake/{name}",
        manifest=manifest,
        line=1,
        tags=tags,
        depends_on=depends_on,
        **{block: ALL_BLOCKS[block] for block in blocks},
    )
