"""Attacks through the CLI (issue 12): each performs the attack on real generated tables, runs
``plan`` + ``apply``, and checks that nothing outside the reviewed plan, or outside the table,
was deleted and that ``hudi`` reads every row it read before."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from maintainer.artifact.model import FinishPendingClean
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import State
from maintainer.hudi.table.state import open_table
from tests.support import artifacts, oracle

pytestmark = pytest.mark.spark

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def files_below(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()}


def cow_table(path: Path, seed: int) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=seed)
    generate(str(path), DatagenSpec("t", "cow", 6, workload))


def test_a_linked_partition_of_another_table_is_never_cleaned(
    project: Callable[[Path, str], Path], tmp_path: Path
) -> None:
    """``ln -s ../other/city=city_0000 t/city=city_9999``, where the other table is a copy (its
    files carry this table's instant times): a listing that follows links would take the folder
    for a partition and its old file versions for this table's. It is not listed: the plan names
    nothing in it, apply deletes nothing in the other table, which reads the same after."""
    table, other = tmp_path / "t", tmp_path / "other"
    cow_table(table, seed=1)
    shutil.copytree(table, other)
    os.symlink(other / "city=city_0000", table / "city=city_9999", target_is_directory=True)
    other_files, other_rows = files_below(other), oracle.snapshot_rows(other, drop=META)
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "clean: {commits_retained: 1}\narchive: {enabled: false}")

    assert main(["plan", "--project-dir", str(root)]) == 0
    plan = json.loads((root / "target" / "plan" / "plan.json").read_text())
    planned = [a["target"] for t in plan["tables"] for n in t["nodes"] for a in n["actions"]]
    assert planned and not [p for p in planned if "city_9999" in p]
    assert main(["apply", "--project-dir", str(root)]) == 0

    assert files_below(other) == other_files
    assert oracle.snapshot_rows(other, drop=META) == other_rows
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_linked_file_in_a_partition_is_never_deleted_through_and_the_error_says_why(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The oldest base file of a partition replaced by a link to the same file in a copy of the
    table: the clean that removes that old version deletes every other file it planned, never
    the link nor what it points to, and fails naming the link as the reason (not a storage
    permission). The copy reads the same after; so does the table."""
    table, other = tmp_path / "t", tmp_path / "other"
    cow_table(table, seed=2)
    shutil.copytree(table, other)
    partition = table / "city=city_0000"
    oldest = min(partition.glob("*.parquet"), key=lambda p: p.stem.rsplit("_", 1)[1])
    oldest.unlink()
    os.symlink(other / "city=city_0000" / oldest.name, oldest)
    other_files, other_rows = files_below(other), oracle.snapshot_rows(other, drop=META)
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "clean: {commits_retained: 1}\narchive: {enabled: false}")

    assert main(["plan", "--project-dir", str(root)]) == 0
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    out = capsys.readouterr()
    assert "could not be deleted" in out.out + out.err
    assert "symbolic link" in out.out + out.err
    assert oldest.is_symlink()
    assert files_below(other) == other_files
    assert oracle.snapshot_rows(other, drop=META) == other_rows
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_pending_clean_rewritten_after_the_plan_is_refused_and_deletes_nothing(
    project: Callable[[Path, str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A pending clean (an apply that crashed after its ``.clean.requested``) is named in the
    next plan with its files and the hash of its plan. Between plan and apply, its
    ``.clean.requested`` is rewritten to add 4 live base files (the latest slice of their file
    groups): apply refuses the node before deleting anything, and ``hudi`` reads every row."""
    table = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=6, rows_per_commit=10, seed=3)
    generate(str(table), DatagenSpec("t", "cow", 6, workload))
    root = project(table, "clean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    monkeypatch.setenv(FAULT_ENV, "clean:after_requested")
    assert main(["apply", "--project-dir", str(root)]) == 1
    monkeypatch.delenv(FAULT_ENV)
    loaded = open_table(str(table))
    (pending,) = loaded.snapshot.timeline.pending_cleans()
    requested = table / loaded.snapshot.timeline.file_path(pending, State.REQUESTED)
    reviewed = requested.read_bytes()

    assert main(["plan", "--project-dir", str(root)]) == 0
    plan = artifacts.saved_plan(root / "target" / "plan").plan
    (finish,) = [a for n in plan.nodes() for a in n.actions_of(FinishPendingClean)]
    assert finish.target == pending.timestamp
    decoded = payloads.decode_cleaner_plan(reviewed, str(requested))
    assert decoded is not None and decoded.file_paths_to_be_deleted_per_partition
    assert list(finish.paths) == sorted(
        f"{part}/{(info.file_path or '').rsplit('/', 1)[-1]}"
        for part, infos in decoded.file_paths_to_be_deleted_per_partition.items()
        for info in infos
    )
    assert finish.sha256 == hashlib.sha256(reviewed).hexdigest()

    live = sorted(s.base_file.path for s in loaded.view.latest_slices() if s.base_file)
    assert len(live) == 4
    added: dict[str, list[payloads.CleanFileInfo]] = {}
    for path in live:
        added.setdefault(path.rsplit("/", 1)[0], []).append(
            payloads.CleanFileInfo(file_path=loaded.storage.uri(path))
        )
    tampered = {
        part: (*decoded.file_paths_to_be_deleted_per_partition.get(part, ()), *added.get(part, ()))
        for part in sorted({*decoded.file_paths_to_be_deleted_per_partition, *added})
    }
    requested.write_bytes(
        payloads.encode_avro(replace(decoded, file_paths_to_be_deleted_per_partition=tampered))
    )
    before, rows = files_below(table), oracle.snapshot_rows(table, drop=META)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1
    out = capsys.readouterr().out
    assert f"the pending clean {pending.timestamp} was changed after the plan was made" in out
    assert "make the plan again" in out
    assert files_below(table) == before, "nothing deleted"
    assert oracle.snapshot_rows(table, drop=META) == rows
    assert open_table(str(table)).snapshot.timeline.pending_cleans() == [pending]
