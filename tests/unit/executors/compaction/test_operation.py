"""One compaction operation on hand-made slices: log-only slices, uncommitted and rolled-back
blocks, meta columns kept, the write stat, and non-Parquet base files refused."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.errors import StorageError, UnsupportedTableError
from maintainer.executors.common.slice_read import BaseFileReader, CommittedInstants
from maintainer.executors.compaction.operation import (
    CompactionTask,
    SliceToCompact,
    compact_slice,
)
from maintainer.hudi import logformat
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings
from maintainer.storage import Storage
from tests.unit.services.compaction.records import EVENT_TIME_RULES, KEY_TS_AVRO

AVRO = KEY_TS_AVRO
WITH_META = json.dumps({
    "type": "record", "name": "r", "fields": [
        *[{"name": n, "type": ["null", "string"], "default": None} for n in (
            "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
            "_hoodie_file_name")],
        {"name": "k", "type": ["null", "string"], "default": None},
        {"name": "ts", "type": ["null", "long"], "default": None},
    ],
})  # fmt: skip
RULES = EVENT_TIME_RULES
COMMITTED = CommittedInstants(frozenset({"001", "002", "004"}), "001")
LOG = ".fg-0_001.log.1_0-1-1"


def record(key: str, ts: int, instant: str, seq: int) -> dict[str, object]:
    meta = {
        "_hoodie_commit_time": instant,
        "_hoodie_commit_seqno": f"{instant}_0_{seq}",
        "_hoodie_record_key": key,
        "_hoodie_partition_path": "p",
        "_hoodie_file_name": "fg-0",
    }
    return {**meta, "k": key, "ts": ts}


def task(storage: Storage, base: str | None, logs: tuple[str, ...] = (LOG,)) -> CompactionTask:
    slice_ = SliceToCompact("p", "fg-0", "001", base, logs)
    return CompactionTask(storage, "005", slice_, "0-1-0", 0, AVRO, RULES, COMMITTED, ParquetSettings())


def write_log(storage: Storage, *blocks: bytes) -> None:
    storage.write_bytes(f"p/{LOG}", b"".join(blocks))


def test_log_only_slice_becomes_a_base_file_with_the_records_meta_columns(tmp_path: Path) -> None:
    """A slice without base file: prevCommit is HoodieWriteStat.NULL_COMMIT ("null"), as
    FileGroupReaderBasedMergeHandle.init (0.x HoodieCreateHandle.setupWriteStatus) sets it; with a
    base file it is the base file's commit time (the next test)."""
    storage = Storage(str(tmp_path))
    write_log(
        storage,
        logformat.avro_data_block([record("a", 1, "001", 0), record("b", 1, "001", 1)], WITH_META, "001"),
        logformat.avro_data_block([record("a", 2, "003", 0)], WITH_META, "003"),  # never committed
        logformat.avro_data_block([record("b", 5, "002", 0)], WITH_META, "002"),
        logformat.rollback_command_block("004", "002"),  # rolls back 002's block
    )
    stat = compact_slice(task(storage, None))
    assert stat.path == "p/fg-0_0-1-0_005.parquet" and stat.prev_base_file is None
    assert stat.prev_commit == "null", "HoodieWriteStat.NULL_COMMIT: no base file before"
    rows = pq.read_table(tmp_path / "p/fg-0_0-1-0_005.parquet").to_pylist()
    assert {(r["k"], r["ts"], r["_hoodie_commit_time"], r["_hoodie_commit_seqno"]) for r in rows} == {
        ("a", 1, "001", "001_0_0"),
        ("b", 1, "001", "001_0_1"),
    }
    assert {r["_hoodie_file_name"] for r in rows} == {"fg-0_0-1-0_005.parquet"}
    assert (stat.num_inserts, stat.num_writes, stat.total_rollback_blocks, stat.total_log_blocks) == (
        2,
        2,
        1,
        4,
    )
    assert (
        stat.total_log_files_compacted == 1
        and stat.total_log_size_compacted == (tmp_path / "p" / LOG).stat().st_size
    )
    assert (tmp_path / ".hoodie/.temp/005/p/fg-0_0-1-0_005.parquet.marker.CREATE").exists()


def test_base_rows_are_merged_with_updates_and_deletes(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    base = "fg-0_0-1-0_001.parquet"
    with BaseFileWriter(storage, BaseFileTarget(f"p/{base}", "p", "001"), AVRO) as writer:
        writer.write(pa.table({"k": ["a", "b", "c"], "ts": [1, 1, 1]}), pa.array(["a", "b", "c"]))
    write_log(
        storage,
        logformat.avro_data_block([record("a", 2, "002", 0), record("z", 2, "002", 1)], WITH_META, "002"),
        logformat.delete_block([logformat.DeleteRecord("b", "p", None)], "002", WITH_META),
    )
    stat = compact_slice(task(storage, base))
    rows = pq.read_table(tmp_path / (stat.path or "")).to_pylist()
    assert sorted((r["k"], r["ts"], r["_hoodie_commit_time"]) for r in rows) == [
        ("a", 2, "002"), ("c", 1, "001"), ("z", 2, "002"),
    ]  # fmt: skip
    assert (stat.num_update_writes, stat.num_deletes, stat.num_inserts, stat.num_writes) == (1, 1, 1, 3)
    assert (
        stat.prev_commit == "001"
        and stat.prev_base_file == base
        and stat.total_updated_records_compacted == 3
    )
    assert stat.file_size_in_bytes == (tmp_path / (stat.path or "")).stat().st_size


def test_non_parquet_base_file_is_refused(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    write_log(storage, logformat.avro_data_block([record("a", 1, "001", 0)], WITH_META, "001"))
    with pytest.raises(UnsupportedTableError, match="not Parquet"):
        compact_slice(task(storage, "fg-0_0-1-0_001.lance"))


def written_base_file(tmp_path: Path) -> tuple[Storage, str, int]:
    storage = Storage(str(tmp_path))
    path = "p/f.parquet"
    table = pa.table({"k": [f"k{i}" for i in range(5000)], "v": list(range(5000))})
    (tmp_path / "p").mkdir()
    pq.write_table(table, tmp_path / path, row_group_size=2000, compression="zstd")
    return storage, path, (tmp_path / path).stat().st_size


def test_a_base_file_read_with_its_size_reads_as_opened(tmp_path: Path) -> None:
    storage, path, size = written_base_file(tmp_path)
    with BaseFileReader(storage, path) as opened, BaseFileReader(storage, path, size) as sized:
        assert sized.codec == opened.codec == "zstd"
        assert [t.num_rows for t in sized.row_groups()] == [2000, 2000, 1000]
        assert all(a.equals(b) for a, b in zip(sized.row_groups(), opened.row_groups(), strict=True))


def test_a_missing_base_file_read_with_a_size_fails_clearly(tmp_path: Path) -> None:
    storage, _, size = written_base_file(tmp_path)
    with pytest.raises(StorageError, match="not found"):
        BaseFileReader(storage, "p/gone.parquet", size)
