"""Apply takes the stricter rule (issue 29, attack 8): a plan made under one manifest is applied
after the manifest became stricter. The node the current manifest no longer allows is skipped
(said before anything runs and in the node's line), or, with ``--refuse-stale``, the whole plan
is refused; nothing is deleted and ``hudi`` reads every row."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support import oracle

pytestmark = pytest.mark.spark

ProjectWriter = Callable[[Path, str], Path]
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
CLEAN = "clean: {commits_retained: 1}\narchive: {enabled: false}"


def data_files(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*.parquet")}


def table_with_old_versions(path: Path, seed: int, version: int = 6, metadata_table: bool = False) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=seed)
    generate(str(path), DatagenSpec("t", "cow", version, workload, metadata_table=metadata_table))


@pytest.mark.parametrize(
    ("stricter", "said"),
    [
        ("clean: {commits_retained: 1}\narchive: {enabled: false}\ngates: {max_delete_files: 1}",
         "under today's gates: over the gate gates.max_delete_files"),
        ("clean: {commits_retained: 1}\narchive: {enabled: false}\nreaders: [{name: audit, keep: 3650d}]",
         "under today's readers: would cut off reader audit"),
        ("clean: {enabled: false}\narchive: {enabled: false}", "clean is disabled (or removed) in"),
    ],
    ids=["gate", "reader", "disabled"],
)  # fmt: skip
def test_a_node_the_current_manifest_no_longer_allows_is_skipped(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], stricter: str, said: str
) -> None:
    table = tmp_path / "t"
    table_with_old_versions(table, seed=71)
    rows, files = oracle.snapshot_rows(table, drop=META), data_files(table)
    root = project(table, CLEAN)
    assert main(["plan", "--project-dir", str(root)]) == 0
    project(table, stricter)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root), "--refuse-stale"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "the plan is stale: the current manifests are stricter than the plan: t.clean" in err and said in err
    )
    assert data_files(table) == files

    main(["apply", "--project-dir", str(root)])
    out = capsys.readouterr()
    warned, told = " ".join(out.err.split()), " ".join(out.out.split())
    assert (
        f"the current manifests are stricter than the plan; the node will be skipped: t.clean: {said}"
        in warned
    )
    assert "t.clean skipped: the current manifests are stricter than the plan" in told or said in told
    assert data_files(table) == files, "nothing deleted"
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_plan_that_drops_the_metadata_table_does_not_once_the_manifest_says_sync(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    table_with_old_versions(table, seed=72, version=8, metadata_table=True)
    assert (table / ".hoodie" / "metadata").is_dir()
    rows, files = oracle.snapshot_rows(table, drop=META), data_files(table)
    root = project(table, "metadata_table: drop\n" + CLEAN)
    assert main(["plan", "--project-dir", str(root)]) == 0
    project(table, "metadata_table: sync\n" + CLEAN)
    capsys.readouterr()
    main(["apply", "--project-dir", str(root)])
    err = " ".join(capsys.readouterr().err.split())
    assert "the plan drops the metadata table, and tables/example.yml:3 now says metadata_table: sync" in err
    assert (table / ".hoodie" / "metadata").is_dir(), "the metadata table is kept"
    assert data_files(table) == files
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_retention_raised_after_the_plan_deletes_only_what_both_allow(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retention needs no separate check: the clean re-plans with today's settings and deletes
    the intersection with the plan, so raising ``commits_retained`` keeps the files it now needs."""
    table = tmp_path / "t"
    table_with_old_versions(table, seed=73)
    files = data_files(table)
    root = project(table, CLEAN)
    assert main(["plan", "--project-dir", str(root)]) == 0
    project(table, "clean: {commits_retained: 20}\narchive: {enabled: false}")
    assert main(["apply", "--project-dir", str(root)]) == 2, "applied, with drift"
    assert data_files(table) == files
    assert "drifted" in capsys.readouterr().out
