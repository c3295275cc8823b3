"""The concurrent-writer table of timeline layout 2: a deltacommit D requested before a compaction
C and completed after it (normal on table version 8: Flink, or a compaction beside a live
writer). D's log files name D's requested time, which is before C, yet they belong to C's file
slice because D completed after C was requested."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.file_groups.filenames import LogFileName
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.table.state import open_table
from tests.support.clean_checks import data_files
from tests.support.compaction import CompactingWriter


@dataclass(frozen=True)
class ConcurrentWriterTable:
    path: Path
    generated: GeneratedTable
    deltacommit: Instant
    """D: requested before the compaction, completed after it."""
    compaction: Instant
    """C: the compaction a writer ran while D was inflight."""


def concurrent_writer_table(path: Path, commits: int = 8, compacted_at: int = 4) -> ConcurrentWriterTable:
    """A v8 MOR table whose commit ``compacted_at`` (D) was inflight while a compaction (C) of
    every slice ran to completion; checked to have that shape."""
    workload = WorkloadSpec(partitions=1, file_groups=2, commits=commits, rows_per_commit=10, seed=11)
    generated = generate(
        str(path), DatagenSpec("t", "mor", 8, workload), runner=CompactingWriter(path, compacted_at)
    )
    timeline = open_table(str(path)).snapshot.timeline
    (compaction,) = [i for i in timeline.completed() if i.action is Action.COMPACTION]
    deltacommit = next(i for i in timeline.completed() if i.timestamp == generated.completed[compacted_at])
    assert deltacommit.timestamp < compaction.timestamp, "D requested before C"
    assert compaction.completion_time is not None and deltacommit.completion_time is not None
    assert deltacommit.completion_time > compaction.completion_time, "D completed after C"
    return ConcurrentWriterTable(path, generated, deltacommit, compaction)


def log_files_of(path: Path, instant: str) -> set[str]:
    """The table's log files written by the deltacommit requested at ``instant``."""
    found = set()
    for relative in data_files(path):
        name = LogFileName.parse(relative.rsplit("/", 1)[-1])
        if name is not None and name.instant_time == instant:
            found.add(relative)
    return found
