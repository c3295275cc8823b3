"""Hudi parity through the CLI (issue 11): scenarios where a tool that diverges from Hudi's own
services would leave a table that Hudi then reads or cleans wrongly. Each test builds the
scenario with datagen (a write left inflight among younger commits, as a concurrent writer that
died or still runs leaves it) or a real fixture, runs ``plan`` + ``apply``, and checks Hudi's rule
directly on the timeline, and the rows with ``hudi`` and ``inspect --records``.

hudi-rs does not apply Hudi's "before the start of the active timeline counts as committed"
rule, so the timeline assertions state the rule; the row checks catch what a reader sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.archive.executor import run_archive
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.state import open_table
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.compaction.settings import CompactionSpec
from tests.support import oracle
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.spark

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
LEAVE_WRITES = "rollback: {min_age: 30d}"
NO_COMPACTION = "compaction: {enabled: false}"
ARCHIVE_2_3 = "archive: {keep_min_commits: 2, keep_max_commits: 3}"
NOT_COUNTING = CompactionSpec.model_validate({"trigger": {"strategy": "time_elapsed"}})
NO_CLEAN = "clean: {enabled: false, commits_retained: 1}"
COMPACT_ONLY = f"{NO_CLEAN}\ncompaction: {{trigger: {{max_delta_commits: 1}}}}\narchive: {{enabled: false}}"


def plan_and_apply(root: Path) -> None:
    assert main(["plan", "--project-dir", str(root)]) in (0, 2)
    assert main(["apply", "--project-dir", str(root)]) == 0


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return oracle.rows_of(rows)


def hudi_rows(path: Path, as_of: str | None = None) -> list[dict[str, Any]]:
    return oracle.snapshot_rows(path, as_of=as_of, drop=META)


def inspected_rows(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["inspect", str(path), "--records"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return by_key([{k: v for k, v in r.items() if k not in META} for r in rows])


def summary(rows: list[dict[str, Any]]) -> dict[Any, tuple[Any, Any]]:
    """Key -> (name, isActive) of the rollback fixture's rows (its other columns do not print as
    JSON the way Arrow returns them)."""
    return {r["id"]: (r["name"], r["isActive"]) for r in rows}


def busy_table(path: Path, kind: str, version: int, failed_at: int = 3) -> GeneratedTable:
    """12 writes, write ``failed_at`` left inflight: on MOR, Hudi's default compaction window (the 5
    newest delta commits) then lies well after it, so only the pending-write rule holds archival."""
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=12, rows_per_commit=12, seed=7)
    return generate(str(path), DatagenSpec("t", kind, version, workload, failed_write_at=failed_at))


def active_commit_times(path: Path) -> list[str]:
    return [i.timestamp for i in open_table(str(path)).snapshot.timeline.completed_commits()]


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8)])
def test_archival_keeps_the_commit_before_a_write_left_inflight(
    project: Callable[[Path, str], Path], tmp_path: Path, kind: str, version: int
) -> None:
    """TimelineArchiverV1/V2.getCommitInstantsToArchive: with write 4 of 12 inflight (its writer
    younger than rollback.min_age, so left alone), archive keep 2/3 archives only the commits
    before the greatest completed commit preceding it: that commit stays on the active timeline,
    so the inflight write never falls "before the start of the timeline" where Hudi's readers
    (HoodieFileGroup.isFileSliceCommitted, containsOrBeforeTimelineStarts) would read its files."""
    table = busy_table(tmp_path / "t", kind, version)
    failed = table.failed_instant
    assert failed is not None
    before = hudi_rows(tmp_path / "t")
    root = project(tmp_path / "t", f"{LEAVE_WRITES}\n{NO_COMPACTION}\n{NO_CLEAN}\n{ARCHIVE_2_3}")
    plan_and_apply(root)

    active = active_commit_times(tmp_path / "t")
    last_before_failed = max(c for c in table.completed if c < failed)
    assert active[0] == last_before_failed
    assert active == [c for c in table.completed if c >= last_before_failed]
    timeline = open_table(str(tmp_path / "t")).snapshot.timeline
    assert [i.timestamp for i in timeline.pending_writes()] == [failed]
    assert not timeline.is_before_start(failed)
    assert hudi_rows(tmp_path / "t") == before == by_key(table.expected[table.completed[-1]])
    for instant in active:
        assert hudi_rows(tmp_path / "t", as_of=instant) == by_key(table.expected[instant]), instant


def test_a_rolled_back_write_archived_past_stays_rolled_back_v6(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AbstractHoodieLogRecordReader.scanInternalV1: rollback command blocks always apply; only
    data and delete blocks are checked against the timeline. A v6 MOR write that failed among
    younger commits is rolled back (command blocks appended), then archival moves the start of
    the timeline past it, so its data blocks now count as committed: the rollback block must
    still remove them, for ``inspect --records`` and for the compaction that follows."""
    path = tmp_path / "t"
    table = busy_table(path, "mor", 6)
    expected = by_key(table.expected[table.completed[-1]])
    root = project(path, f"rollback: {{min_age: 0s}}\n{NO_COMPACTION}\n{NO_CLEAN}\n{ARCHIVE_2_3}")
    plan_and_apply(root)  # the rollback; archival stops before the write it rolls back
    plan_and_apply(root)  # archival past the rolled-back write
    timeline = open_table(str(path)).snapshot.timeline
    assert table.failed_instant is not None and timeline.is_before_start(table.failed_instant)
    assert inspected_rows(path, capsys) == expected

    project(path, COMPACT_ONLY)
    plan_and_apply(root)
    assert open_table(str(path)).snapshot.timeline.last_completed(Action.COMPACTION) is not None
    assert inspected_rows(path, capsys) == expected
    assert hudi_rows(path) == expected


def test_the_rollback_fixture_archived_past_its_rolled_back_write_reads_the_same(
    project: Callable[[Path, str], Path],
    fixture_copy: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same rule on a table Hudi wrote (rollback_to_instant of a deltacommit, then a new one):
    once the first deltacommit is archived (keep 1, below what a manifest allows, so archived
    with the service directly), the rolled-back deltacommit precedes the timeline; ``inspect
    --records`` and the compaction through the CLI must still apply the rollback block Hudi wrote.
    (Here the rollback instant precedes the timeline too, so this table alone cannot tell the rule
    from the old one; the datagen test above, whose rollback is the newest instant, does.)"""
    path = fixture_copy("sample_table_mor_parquet_v6_nonpartitioned_rollback").path
    before = summary(oracle.snapshot_rows(path, drop=META))
    table = open_table(str(path))
    result = plan_archive(
        load_archive_inputs(table, NOT_COUNTING), ArchiveSpec(keep_min_commits=1, keep_max_commits=1)
    )
    run_archive(table.storage, table.snapshot.config, result)
    assert len(active_commit_times(path)) == 1
    assert summary(inspected_rows(path, capsys)) == before
    root = project(path, COMPACT_ONLY)
    plan_and_apply(root)
    assert open_table(str(path)).snapshot.timeline.last_completed(Action.COMPACTION) is not None
    assert summary(inspected_rows(path, capsys)) == before
    assert summary(oracle.snapshot_rows(path, drop=META)) == before
