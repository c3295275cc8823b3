"""Generated tables are real Hudi tables: hudi (the oracle) and our reader return exactly the
generated rows, at the latest instant and as of every completed commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import DATA_SCHEMA, WorkloadSpec
from maintainer.hudi.instants.instant import State
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.records.reader import read_table
from maintainer.hudi.table.state import open_table
from tests.support import oracle

DATA_COLUMNS = DATA_SCHEMA.names
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip

CASES = [
    pytest.param(kind, version, partitions, failed, id=f"{kind}-v{version}-p{partitions}-{failed=}")
    for kind in ("cow", "mor")
    for version in (6, 8)
    for partitions, failed in ((0, False), (3, True))
]  # fmt: skip


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["uuid"])


def our_rows(path: Path, as_of: str) -> list[dict[str, Any]]:
    table = read_table(open_table(str(path)), as_of)
    return by_key(table.select(DATA_COLUMNS).to_pylist()) if table is not None else []


@pytest.mark.parametrize(("table_type", "version", "partitions", "failed"), CASES)
def test_hudi_and_our_reader_return_the_generated_rows(
    tmp_path: Path, table_type: str, version: int, partitions: int, failed: bool
) -> None:
    workload = WorkloadSpec(
        partitions=partitions, file_groups=2, commits=4, rows_per_commit=40, delete_ratio=0.1
    )
    table = generate(
        str(tmp_path / "t"), DatagenSpec("t", table_type, version, workload, failed_write=failed)
    )
    assert len(table.completed) == (3 if failed else 4)
    assert oracle.completed_commit_times(tmp_path / "t") == list(table.completed)
    for instant, rows in table.expected.items():
        expected = by_key(rows)
        assert by_key(oracle.snapshot_rows(tmp_path / "t", as_of=instant, drop=META)) == expected, instant
        assert our_rows(tmp_path / "t", instant) == expected, instant
    latest = table.expected[table.completed[-1]]
    assert by_key(oracle.snapshot_rows(tmp_path / "t", drop=META)) == by_key(latest)


@pytest.mark.parametrize(("table_type", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8)])
def test_a_write_failed_among_younger_commits_is_never_read(
    tmp_path: Path, table_type: str, version: int
) -> None:
    """``failed_write_at``: commit 3 of 6 left inflight (a concurrent writer that died) while the
    later ones complete; both readers return exactly the committed rows, as of every commit."""
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=6, rows_per_commit=30)
    spec = DatagenSpec("t", table_type, version, workload, failed_write_at=3)
    table = generate(str(tmp_path / "t"), spec)
    assert len(table.completed) == 5 and table.failed_instant is not None
    assert table.completed[2] < table.failed_instant < table.completed[3]
    pending = open_table(str(tmp_path / "t")).snapshot.timeline.pending_writes()
    assert [i.timestamp for i in pending] == [table.failed_instant]
    for instant, rows in table.expected.items():
        expected = by_key(rows)
        assert by_key(oracle.snapshot_rows(tmp_path / "t", as_of=instant, drop=META)) == expected, instant
        assert our_rows(tmp_path / "t", instant) == expected, instant


def test_failed_write_leaves_inflight_instant_files_markers_and_heartbeat(tmp_path: Path) -> None:
    workload = WorkloadSpec(partitions=2, commits=3, rows_per_commit=20)
    table = generate(str(tmp_path / "t"), DatagenSpec("t", "mor", 8, workload, failed_write=True))
    loaded = open_table(str(tmp_path / "t"))
    pending = loaded.snapshot.timeline.pending_writes()
    assert [i.timestamp for i in pending] == [table.failed_instant]
    assert pending[0].state is State.INFLIGHT
    assert table.failed_instant in loaded.snapshot.heartbeats
    markers = list((tmp_path / "t" / ".hoodie" / ".temp" / str(table.failed_instant)).rglob("*.marker.*"))
    assert markers
    assert {f.name for f in loaded.view.uncommitted} == {m.name.split(".marker.")[0] for m in markers}


def test_completed_writes_leave_no_markers_or_heartbeats(tmp_path: Path) -> None:
    generate(str(tmp_path / "t"), DatagenSpec("t", "cow", 6, WorkloadSpec(commits=2, rows_per_commit=10)))
    assert not list((tmp_path / "t" / ".hoodie" / ".temp").rglob("*.marker.*"))
    assert not list((tmp_path / "t" / ".hoodie" / ".heartbeat").glob("*"))


@pytest.mark.spark
def test_spark_writes_one_task_per_file_group_and_hudi_reads_the_rows(tmp_path: Path, spark: Any) -> None:
    from maintainer.spark.tasks import SparkRunner

    workload = WorkloadSpec(partitions=2, file_groups=2, commits=3, rows_per_commit=60)
    spec = DatagenSpec("t", "mor", 8, workload)
    table = generate(str(tmp_path / "t"), spec, runner=SparkRunner(spark))
    in_process = generate(str(tmp_path / "u"), spec)
    assert table.expected[table.completed[-1]] == in_process.expected[in_process.completed[-1]]
    for instant, rows in table.expected.items():
        assert by_key(oracle.snapshot_rows(tmp_path / "t", as_of=instant, drop=META)) == by_key(rows)


@pytest.mark.parametrize(("table_type", "partitions"), [("cow", 3), ("mor", 3), ("mor", 0)])
def test_a_generated_metadata_table_lists_the_files_hudi_reads(
    tmp_path: Path, table_type: str, partitions: int
) -> None:
    """``metadata_table``: hudi lists the table through it (the ``files`` partition), reads the
    generated rows as of every commit, and our check finds it equal to storage."""
    workload = WorkloadSpec(partitions=partitions, file_groups=2, commits=5, rows_per_commit=30)
    table = generate(str(tmp_path / "t"), DatagenSpec("t", table_type, 8, workload, metadata_table=True))
    loaded = open_table(str(tmp_path / "t"))
    assert loaded.snapshot.config.metadata_partitions == ("files",)
    mdt = open_metadata_table(loaded)
    assert mdt is not None
    check = check_metadata_table(loaded, mdt)
    assert check.problems() == [] and check.files_checked > 0
    for instant, rows in table.expected.items():
        assert by_key(oracle.snapshot_rows(tmp_path / "t", as_of=instant, drop=META)) == by_key(rows), instant
    mdt_timeline = tmp_path / "t" / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    for instant in table.completed:
        assert len(list(mdt_timeline.glob(f"{instant}_*.deltacommit"))) == 1


def test_a_metadata_table_is_for_table_version_8(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="table version 8 only"):
        generate(
            str(tmp_path / "t"), DatagenSpec("t", "cow", 6, WorkloadSpec(commits=1), metadata_table=True)
        )
