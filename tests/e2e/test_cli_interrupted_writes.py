"""Writes a crash cut short where the store does not make them atomic (an older maintainer,
Hudi's own writers on HDFS): through the CLI, the table is planned around them and the next
apply finishes them, as Hudi would, instead of refusing the table for good or calling the plan
"already applied"."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.state import open_table
from tests.e2e.test_crash_campaign import META, pending_maintenance
from tests.e2e.test_crash_partial_writes import profiles_without_spark
from tests.support import oracle

pytestmark = [pytest.mark.spark]

WORKLOAD = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=8, seed=7)


def _compaction_commit(table: Path) -> Path:
    timeline = open_table(str(table)).snapshot.timeline
    (instant,) = [i for i in timeline.of_action(Action.COMPACTION) if i.is_completed]
    return table / timeline.file_path(instant, State.COMPLETED)


def test_a_half_written_compaction_commit_is_completed_again_not_already_applied(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    generate(str(table), DatagenSpec("t", "mor", 8, WORKLOAD))
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "compaction: {trigger: {max_delta_commits: 2}}")
    profiles_without_spark(root)
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert main(["apply", "--project-dir", str(root)]) == 0
    # as a kill mid-write left it on a store without atomic writes: the commit cut in half,
    # the node not yet recorded
    commit = _compaction_commit(table)
    commit.write_bytes(commit.read_bytes()[: commit.stat().st_size // 2])
    shutil.rmtree(table / ".hoodie" / ".maintainer" / "applied")
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 0  # not "already applied"
    out = capsys.readouterr()
    assert "cut short" in out.err + out.out and "completed anew" in out.err + out.out
    assert pending_maintenance(table) == []
    assert oracle.snapshot_rows(table, drop=META) == rows
    assert main(["inspect", str(table)]) == 0


def test_a_new_plan_reports_the_cut_completion_and_apply_finishes_it(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    generate(str(table), DatagenSpec("t", "mor", 8, WORKLOAD))
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "compaction: {trigger: {max_delta_commits: 2}}")
    profiles_without_spark(root)
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert main(["apply", "--project-dir", str(root)]) == 0
    commit = _compaction_commit(table)
    commit.write_bytes(commit.read_bytes()[:100])
    capsys.readouterr()

    assert main(["inspect", str(table)]) == 0
    out = capsys.readouterr()
    assert "was cut short" in out.err + out.out and "the next apply completes it again" in out.err + out.out
    assert main(["plan", "--project-dir", str(root)]) == 0  # not blocked as damaged
    out = capsys.readouterr()
    assert "cut short" in out.err + out.out and "read as inflight" in out.err + out.out
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert pending_maintenance(table) == []
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_properties_update_cut_short_by_hudi_is_recovered_by_apply(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hudi's modify killed between deleting hoodie.properties and writing the new one: only the
    backup is left, and readers that do not look at it (hudi-rs) cannot open the table."""
    table = tmp_path / "t"
    generate(str(table), DatagenSpec("t", "mor", 8, WORKLOAD, failed_write_at=4, metadata_table=True))
    rows = oracle.snapshot_rows(table, drop=META)
    properties = table / ".hoodie" / "hoodie.properties"
    shutil.move(properties, table / ".hoodie" / "hoodie.properties.backup")
    root = project(table, "metadata_table: drop\nrollback: {min_age: 0s}")
    profiles_without_spark(root)
    capsys.readouterr()

    assert main(["plan", "--project-dir", str(root), "--detailed-exitcode"]) == 2  # planned, not blocked
    out = capsys.readouterr()
    assert "the next apply recovers hoodie.properties" in out.err + out.out
    assert not properties.exists()  # plan writes nothing
    assert main(["apply", "--project-dir", str(root)]) == 0
    out = capsys.readouterr()
    assert "recovered .hoodie/hoodie.properties" in out.err + out.out
    assert properties.exists() and not (table / ".hoodie" / "hoodie.properties.backup").exists()
    assert not (table / ".hoodie" / "metadata").exists()
    assert oracle.snapshot_rows(table, drop=META) == rows
