"""Issue 31's done-when run: a v8 merge-on-read table with a metadata table, one write then
``apply --auto-approve`` per cycle, the project's default settings (the ``init`` template), on
the local engine. Every cycle ``inspect --check-metadata`` is clean; at the end the metadata
table's log files and active instants are bounded as a Hudi writer would leave them, the data
table's active timeline stays within ``keep_max_commits``, and hudi reads the written rows with
and without the metadata table.

``MAINTAINER_METADATA_CYCLES`` sets the number of cycles (default 60, about 15 s: enough for
four metadata compactions, cleans and archival of both timelines); the figures per ten cycles
are printed (``-s``) for the issue's note."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, TableWriter
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.compaction_plan import deltacommits_since_compaction
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.metadata_tables import FILE_NAME, without_metadata_table

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
META += FILE_NAME
CYCLES = int(os.environ.get("MAINTAINER_METADATA_CYCLES", "60"))
KEEP_MAX_COMMITS = 30  # the template's archive.keep_max_commits
METADATA_KEEP_MAX = KEEP_MAX_COMMITS + 1  # Hudi's metadata write config: the data table's + 1


@dataclass(frozen=True)
class Figures:
    cycle: int
    mdt_log_files: int
    mdt_base_files: int
    mdt_active_instants: int
    mdt_compactions: int
    mdt_deltacommits_since_compaction: int
    data_active_commits: int
    data_archived: bool

    def line(self) -> str:
        return (
            f"cycle {self.cycle:3d}: metadata table {self.mdt_log_files} log files, "
            f"{self.mdt_base_files} base files, {self.mdt_active_instants} active instants "
            f"({self.mdt_compactions} compactions active, {self.mdt_deltacommits_since_compaction} "
            f"deltacommits since the last); data table {self.data_active_commits} active commits, "
            f"archived timeline {'present' if self.data_archived else 'empty'}"
        )


def _commits(timeline: Timeline) -> int:
    return len(timeline.completed_commits())


def figures(path: Path, cycle: int) -> Figures:
    table = open_table(str(path), partitions=(), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    timeline = mdt.state.snapshot.timeline
    metadata = path / ".hoodie" / "metadata"
    files = [p for p in metadata.rglob("*") if p.is_file() and p.relative_to(metadata).parts[0] != ".hoodie"]
    history = path / ".hoodie" / "timeline" / "history"
    return Figures(
        cycle=cycle,
        mdt_log_files=sum(1 for p in files if ".log." in p.name),
        mdt_base_files=sum(1 for p in files if p.name.endswith(".hfile")),
        mdt_active_instants=len(timeline.instants),
        mdt_compactions=sum(1 for i in timeline.completed() if i.action.value in ("commit", "compaction")),
        mdt_deltacommits_since_compaction=deltacommits_since_compaction(timeline),
        data_active_commits=_commits(table.snapshot.timeline),
        data_archived=history.is_dir() and any(history.iterdir()),
    )


def test_sixty_cycles_of_writes_and_maintenance_keep_both_timelines_bounded(
    bare_project: Callable[[Path, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    path = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=CYCLES, rows_per_commit=8, seed=60)
    writer = TableWriter(str(path), DatagenSpec("t", "mor", 8, workload, metadata_table=True))
    root = bare_project(path, "")
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    report: list[Figures] = []
    for cycle in range(1, CYCLES + 1):
        writer.write_next()
        code = main(["apply", "--auto-approve", "--project-dir", str(root)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert main(["inspect", str(path), "--check-metadata"]) == 0, capsys.readouterr().out
        capsys.readouterr()
        if cycle % 10 == 0 or cycle == CYCLES:
            report.append(figures(path, cycle))
    with capsys.disabled():
        print("\n" + "\n".join(f.line() for f in report))
    last = report[-1]
    assert last.mdt_compactions >= 1
    assert last.mdt_deltacommits_since_compaction < 10
    assert last.data_active_commits <= KEEP_MAX_COMMITS
    if CYCLES >= 40:
        assert last.data_archived
        assert last.mdt_active_instants <= 2 * METADATA_KEEP_MAX
    expected = oracle.rows_of(writer.workload.expected_rows())
    assert oracle.snapshot_rows(path, drop=META) == expected
    assert oracle.snapshot_rows(without_metadata_table(path, tmp_path), drop=META) == expected
