"""The clean executor's drift reasons say what is wrong with an approved path."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.clean.apply import drift_reason, lost_from_storage, recheck_planner
from maintainer.services.clean.settings import CleanSpec


def test_edited_paths_are_refused_as_outside_or_not_hudi_and_a_gone_file_is_gone(tmp_path: Path) -> None:
    table_dir = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=3, rows_per_commit=5, seed=2)
    generate(str(table_dir), DatagenSpec("t", "cow", 6, workload))
    victim = tmp_path / "victim" / "keep_1-0-1_20240101000000000.parquet"
    victim.parent.mkdir()
    victim.write_bytes(b"PAR1")
    table = open_table(str(table_dir))
    (partition,) = table.snapshot.listings
    (table_dir / partition / "notes.txt").write_text("not data")
    clean = CleanSpec(commits_retained=1)
    spec = TableSpec.of(name="t", path=str(table_dir), manifest="m.yml", line=1, clean=clean)
    current = recheck_planner(table, spec, datetime.now(timezone.utc))

    assert drift_reason(table, current, str(victim)).startswith("refused: outside the table")
    assert drift_reason(table, current, f"{partition}/../../victim/{victim.name}").startswith(
        "refused: outside the table"
    )
    assert drift_reason(table, current, f"{partition}/notes.txt") == "refused: not a Hudi data file"
    gone = f"{partition}/00000000-0000-0000-0000-000000000000-0_1-0-1_20240101000000000.parquet"
    assert drift_reason(table, current, gone) == "the file is already gone"
    assert victim.exists() and (table_dir / partition / "notes.txt").exists()


def test_approved_files_lost_from_storage_are_kept_in_the_clean_and_nothing_else(tmp_path: Path) -> None:
    """A planned file whose partition is listed without it counts as deleted (Hudi's cleaner);
    a file still there, a path in a partition not listed, and a non-data path do not."""
    table_dir = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=2, rows_per_commit=5, seed=3)
    generate(str(table_dir), DatagenSpec("t", "cow", 8, workload))
    table = open_table(str(table_dir))
    (partition,) = table.snapshot.listings
    present = next(f.name for f in table.snapshot.listings[partition] if f.name.endswith(".parquet"))
    gone = f"{partition}/00000000-0000-0000-0000-000000000000-0_1-0-1_20240101000000000.parquet"
    elsewhere = "not/listed/00000000-0000-0000-0000-000000000000-0_1-0-1_20240101000000000.parquet"
    approved = [gone, f"{partition}/{present}", elsewhere, f"{partition}/notes.txt"]
    assert lost_from_storage(table, approved) == {gone}


def test_reasons_sharing_the_listed_names_are_the_same_and_list_each_partition_once(tmp_path: Path) -> None:
    """Apply asks the reason of every drifted file with one cache of each partition's names:
    the same reasons as asked one by one, and a partition's names taken once."""
    table_dir = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=3, rows_per_commit=5, seed=4)
    generate(str(table_dir), DatagenSpec("t", "mor", 8, workload))
    table = open_table(str(table_dir))
    spec = TableSpec.of(name="t", path=str(table_dir), manifest="m.yml", line=1,
                        clean=CleanSpec(commits_retained=1))  # fmt: skip
    current = recheck_planner(table, spec, datetime.now(timezone.utc))
    partitions = sorted(table.snapshot.listings)
    present = [f"{p}/{f.name}" for p in partitions for f in table.snapshot.listings[p]]
    gone = [f"{p}/00000000-0000-0000-0000-00000000000{i}-0_1-0-1_20240101000000000.parquet"
            for p in partitions for i in range(3)]  # fmt: skip
    paths = [*present, *gone, "not/listed/x_1-0-1_20240101000000000.parquet", "../outside.parquet"]
    names: dict[str, frozenset[str]] = {}

    shared = [drift_reason(table, current, path, names) for path in paths]

    assert shared == [drift_reason(table, current, path) for path in paths]
    assert sorted(names) == partitions
    assert shared[len(present) : len(present) + len(gone)] == ["the file is already gone"] * len(gone)
