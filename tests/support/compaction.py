"""Compactions as a Hudi writer would make them, for tests that need compacted or
compaction-pending merge-on-read tables: every slice with log files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from maintainer.artifact.model import CompactSlice
from maintainer.datagen.generator import LOCAL_WRITERS
from maintainer.executors.compaction.executor import run_compaction
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.state import TableState, open_table
from maintainer.project.models import TableSpec
from maintainer.services.compaction.node import plan_compaction_node
from maintainer.services.compaction.payload import build_compaction_plan, encode_compaction_plan
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger

Item = TypeVar("Item")
Result = TypeVar("Result")


def writer_compaction(path: Path) -> tuple[TableState, list[CompactSlice]]:
    """What a Hudi writer would compact now: every slice with logs."""
    table = open_table(str(path))
    spec = TableSpec.of(name="t", path=str(path), manifest="tables/example.yml", line=1,
                     compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)))  # fmt: skip
    result = plan_compaction_node(table, spec, datetime.now(timezone.utc))
    assert result.operations
    return table, list(result.operations)


def schedule_compaction(path: Path) -> str:
    """A pending compaction of every slice with logs, as a Hudi writer schedules it."""
    table, operations = writer_compaction(path)
    writer = TimelineWriter(table.storage, table.snapshot.config)
    instant = writer.create_requested(Action.COMPACTION, encode_compaction_plan(operations, "scheduler"))
    return instant.timestamp


def compact_now(path: Path) -> str:
    """Compact every slice with logs in-process, as a writer's inline compaction; its instant."""
    table, operations = writer_compaction(path)
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    plan = build_compaction_plan(operations, "writer")
    run_compaction(table.storage, table.snapshot.config, instant, plan)
    return instant


class CompactingWriter:
    """Datagen's writer, compacting the table before commit ``at_commit`` writes its files (as
    a writer with inline compaction does; that commit is inflight meanwhile: v8 slices its logs
    by completion time). Datagen runs its writer once per commit, in commit order."""

    def __init__(self, path: Path, at_commit: int) -> None:
        self.path = path
        self.at_commit = at_commit
        self.commits = 0

    @property
    def parallelism(self) -> int:
        return LOCAL_WRITERS.parallelism

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        if self.commits == self.at_commit:
            compact_now(self.path)
        self.commits += 1
        return LOCAL_WRITERS.run(function, items)
