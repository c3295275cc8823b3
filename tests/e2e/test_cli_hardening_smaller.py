"""The smaller attacks of issue 29 (point 9), each through the CLI: a kill between a rollback's
completion and its ledger record resumes in CI instead of refusing the plan as stale; a
truncated compaction output on a table listed from its metadata table is found at plan time;
one table listed twice through a linked folder is refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from tests.support import oracle

pytestmark = pytest.mark.spark

ProjectWriter = Callable[[Path, str], Path]
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def test_a_kill_between_a_rollback_and_its_record_resumes_in_ci(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=81)
    generate(str(table), DatagenSpec("t", "cow", 6, workload, failed_write=True))
    root = project(table, "rollback: {min_age: 0s}\nclean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    monkeypatch.setenv(FAULT_ENV, "rollback:before_record")
    assert main(["apply", "--project-dir", str(root)]) == 1
    monkeypatch.delenv(FAULT_ENV)
    rows = oracle.snapshot_rows(table, drop=META)
    monkeypatch.setenv("CI", "true")  # stale plans are refused in CI
    capsys.readouterr()

    code = main(["apply", "--project-dir", str(root)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert "is stale" not in out.err
    assert "t.rollback" in out.out and "files deleted" in out.out  # the clean ran after it
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_table_that_moved_otherwise_is_still_stale_in_ci(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The rule above accepts only rollbacks of the instants the plan rolls back: a new commit is
    still a stale plan."""
    table = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=4, rows_per_commit=10, seed=82)
    generate(str(table), DatagenSpec("t", "cow", 6, workload, failed_write=True))
    root = project(table, "rollback: {min_age: 0s}\nclean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    completed = sorted((table / ".hoodie").glob("*.commit"))[-1]
    (table / ".hoodie" / ("29991231235959999.commit")).write_bytes(completed.read_bytes())
    monkeypatch.setenv("CI", "true")
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    assert "is stale" in capsys.readouterr().err


def test_a_truncated_compaction_output_is_found_at_plan_time_with_a_metadata_table(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Planning lists a table with a metadata table from its ``files`` partition, whose sizes are
    the committed ones: the newest commit's files are checked against storage."""
    table = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=4, rows_per_commit=20, seed=83)
    generate(str(table), DatagenSpec("t", "mor", 8, workload, metadata_table=True))
    compaction = "compaction: {trigger: {max_delta_commits: 1}}\n"
    root = project(table, compaction + "clean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert main(["apply", "--project-dir", str(root)]) == 0
    newest = max(table.rglob("*.parquet"), key=lambda p: p.name.rsplit("_", 1)[1])
    data = newest.read_bytes()
    newest.write_bytes(data[: len(data) // 2])
    capsys.readouterr()

    assert main(["plan", "--project-dir", str(root)]) == 3, "blocked, not an error"
    said = " ".join(capsys.readouterr().out.split())
    assert f"{newest.name}: base file is {len(data) // 2} bytes, but commit" in said
    assert "is damaged, none of its nodes runs" in said


def test_one_table_listed_twice_through_a_linked_folder_is_refused(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=2, rows_per_commit=10, seed=84)
    generate(str(table), DatagenSpec("t", "cow", 6, workload))
    (tmp_path / "mirror").symlink_to(tmp_path / "lake")
    root = project(table, "clean: {commits_retained: 1}")
    manifest = root / "tables" / "example.yml"
    manifest.write_text(manifest.read_text() + f"  - name: u\n    path: {tmp_path / 'mirror' / 't'}\n")
    capsys.readouterr()
    for command in ("validate", "plan"):
        assert main([command, "--project-dir", str(root)]) == 1
        said = " ".join(capsys.readouterr().err.split())
        assert "tables 't' (tables/example.yml:3" in said and "are the same table" in said
