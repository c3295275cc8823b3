"""One clustering group: slices read (a log-only slice merged as a snapshot, a base-file slice),
ordered by the sort column, split into new file groups whose rows keep their commit time and
sequence number, with CREATE markers and Hudi's footer (bloom filter, min/max record keys)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.executors.clustering.group import GroupTask, SliceToRead, cluster_group
from maintainer.executors.clustering.layout import Layout
from maintainer.executors.common.slice_read import CommittedInstants
from maintainer.hudi import logformat
from maintainer.hudi.parquet import bloom
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings
from maintainer.storage import Storage
from tests.unit.executors.compaction.test_operation import AVRO, RULES, WITH_META, record

CLUSTERING = "005"
COMMITTED = CommittedInstants(frozenset({"001", "002", "004", "006"}), "001")
LOG = ".fg-0_001.log.1_0-1-1"
BASE = "fg-1_0-1-0_001.parquet"


def _table(storage: Storage) -> None:
    storage.write_bytes(
        f"p/{LOG}",
        logformat.avro_data_block([record("a", 9, "001", 0), record("b", 1, "001", 1)], WITH_META, "001")
        + logformat.avro_data_block([record("a", 2, "003", 0)], WITH_META, "003")  # never committed
        + logformat.delete_block([logformat.DeleteRecord("b", "p", None)], "002", WITH_META)
        + logformat.avro_data_block([record("z", 0, "006", 0)], WITH_META, "006"),  # after the clustering
    )
    with BaseFileWriter(storage, BaseFileTarget(f"p/{BASE}", "p", "001"), AVRO) as writer:
        writer.write(pa.table({"k": ["c", "d", "e"], "ts": [5, 3, 7]}), pa.array(["c", "d", "e"]))


def _task(storage: Storage, outputs: int, columns: tuple[str, ...]) -> GroupTask:
    slices = (SliceToRead("p", "fg-0", None, (LOG,)), SliceToRead("p", "fg-1", BASE))
    return GroupTask(storage, CLUSTERING, "p", slices, outputs, 3, AVRO, RULES, COMMITTED,
                     ParquetSettings(), columns, Layout.LINEAR)  # fmt: skip


def test_a_group_becomes_sorted_new_file_groups_keeping_the_rows_meta_columns(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    _table(storage)
    task = _task(storage, 2, ("ts",))
    stats = cluster_group(pickle.loads(pickle.dumps(task)))  # what a Spark task receives
    assert [s.num_writes for s in stats] == [2, 2]
    assert [s.path for s in stats] == [f"p/{s.file_id}_{token}_{CLUSTERING}.parquet" for s, token in
                                       zip(stats, ("3-1-3", "4-1-4"), strict=True)]  # fmt: skip
    assert all(s.file_id and s.file_id.endswith("-0") and s.file_id not in ("fg-0", "fg-1") for s in stats)
    rows = [r for s in stats for r in pq.read_table(tmp_path / (s.path or "")).to_pylist()]
    assert [(r["k"], r["ts"]) for r in rows] == [("d", 3), ("c", 5), ("e", 7), ("a", 9)]
    a = rows[-1]
    assert (a["_hoodie_commit_time"], a["_hoodie_commit_seqno"]) == ("001", "001_0_0")
    for stat in stats:
        path = tmp_path / (stat.path or "")
        names_in_file = set(pq.read_table(path, columns=["_hoodie_file_name"]).column(0).to_pylist())
        assert names_in_file == {path.name}
        assert (tmp_path / f".hoodie/.temp/{CLUSTERING}/p/{path.name}.marker.CREATE").exists()
        footer = pq.read_metadata(path).metadata
        keys = sorted(pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist())
        assert footer[b"hoodie_min_record_key"].decode() == keys[0]
        assert footer[b"hoodie_max_record_key"].decode() == keys[-1]
        assert bloom.BLOOM_FILTER_KEY.encode() in footer
        assert stat.file_size_in_bytes == stat.total_write_bytes == path.stat().st_size


def test_without_sort_columns_rows_keep_plan_order(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    _table(storage)
    (stat,) = cluster_group(_task(storage, 1, ()))
    rows = pq.read_table(tmp_path / (stat.path or "")).to_pylist()
    assert [r["k"] for r in rows] == ["a", "c", "d", "e"]
