"""Corrupt log blocks in a compaction: skipped and counted (``totalCorruptLogBlock``) as Hudi's
log record scanner does; their records are not merged, the blocks around them are."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.executors.compaction.operation import compact_slice
from maintainer.hudi import logformat
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter
from maintainer.storage import Storage
from tests.unit.executors.compaction.test_operation import AVRO, WITH_META, record, task, write_log


def _keys_and_ts(tmp_path: Path, path: str | None) -> list[tuple[str, int]]:
    rows = pq.read_table(tmp_path / (path or "")).to_pylist()
    return sorted((r["k"], r["ts"]) for r in rows)


def test_truncated_last_block_is_skipped_and_counted(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    base = "fg-0_0-1-0_001.parquet"
    with BaseFileWriter(storage, BaseFileTarget(f"p/{base}", "p", "001"), AVRO) as writer:
        writer.write(pa.table({"k": ["a", "b"], "ts": [1, 1]}), pa.array(["a", "b"]))
    crashed = logformat.avro_data_block(
        [record("b", 9, "004", 0), record("c", 9, "004", 1)], WITH_META, "004"
    )
    write_log(
        storage,
        logformat.avro_data_block([record("a", 2, "002", 0)], WITH_META, "002"),
        crashed[: len(crashed) // 2],  # an append cut short by a crash
    )
    stat = compact_slice(task(storage, base))
    assert _keys_and_ts(tmp_path, stat.path) == [("a", 2), ("b", 1)]
    assert (stat.total_corrupt_log_block, stat.total_log_blocks) == (1, 2)
    assert (stat.num_update_writes, stat.num_inserts, stat.total_log_records) == (1, 0, 1)


def test_blocks_after_garbage_are_still_merged(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    write_log(
        storage,
        logformat.avro_data_block([record("a", 1, "001", 0)], WITH_META, "001"),
        logformat.avro_data_block([record("b", 1, "002", 0)], WITH_META, "002"),
        b"garbage!" * 4,  # makes the block before it corrupt, as Hudi's reader sees it
        logformat.avro_data_block([record("c", 1, "004", 0)], WITH_META, "004"),
        b"#HU",  # trailing bytes shorter than a magic: one more corrupt block
    )
    stat = compact_slice(task(storage, None))
    assert _keys_and_ts(tmp_path, stat.path) == [("a", 1), ("c", 1)]
    assert (stat.total_corrupt_log_block, stat.total_log_blocks, stat.num_inserts) == (2, 4, 2)
