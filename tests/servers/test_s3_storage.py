"""Storage on a real S3 server: what maintainer sends for a small write."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.errors import CorruptFileError, StorageError
from maintainer.executors.common.slice_read import BaseFileReader
from maintainer.hudi.config.java_properties import format_java_properties
from maintainer.hudi.config.properties_update import modify_properties
from maintainer.hudi.table.snapshot import load_config
from maintainer.storage import Storage
from tests.unit.hudi.table.test_snapshot import properties

pytestmark = pytest.mark.servers


def test_a_small_file_goes_up_in_one_put(s3_server: Any) -> None:
    base = s3_server.create_bucket("storage-single-put") + "/lake/table"
    storage = Storage(base, s3_server.storage_options())
    before = len(s3_server.requests())
    storage.write_bytes(".hoodie/hoodie.properties", b"hoodie.table.name=t\n")
    sent = s3_server.requests()[before:]
    writes = [request for request in sent if request.method in ("PUT", "POST")]
    assert [(request.method, request.path) for request in writes] == [
        ("PUT", "/storage-single-put/lake/table/.hoodie/hoodie.properties")
    ]
    assert storage.read_bytes(".hoodie/hoodie.properties") == b"hoodie.table.name=t\n"


def test_deletes_leave_no_folder_marker_behind(s3_server: Any) -> None:
    base = s3_server.create_bucket("storage-deletes") + "/lake/table"
    storage = Storage(base, s3_server.storage_options())
    for name in ("f1", "f2", "sub/f3"):
        storage.write_bytes(f".hoodie/metadata/{name}", b"x")
    storage.write_bytes(".hoodie/metadata_old/kept", b"x")
    storage.write_bytes("city=a/f.parquet", b"x")
    before = len(s3_server.requests())
    assert storage.delete("city=a/f.parquet") is True
    assert storage.delete("city=a/f.parquet") is False
    assert storage.delete_dir(".hoodie/metadata") is True
    assert storage.delete_dir(".hoodie/metadata") is False
    sent = s3_server.requests()[before:]
    assert not [request for request in sent if request.method == "PUT"], sent
    assert s3_server.keys("storage-deletes") == ["lake/table/.hoodie/metadata_old/kept"]


def test_a_delete_telling_the_size_sends_one_head_and_one_delete(s3_server: Any) -> None:
    """Rollback records the size of each log file it deletes: the HEAD that tells whether the
    object is there gives it (no stat before the delete)."""
    storage = Storage(s3_server.create_bucket("sized-deletes") + "/t", s3_server.storage_options())
    storage.write_bytes("p/.f1_1.log.1_0-1-1", b"12345")
    before = len(s3_server.requests())
    assert storage.delete_telling_size("p/.f1_1.log.1_0-1-1") == 5
    assert [request.method for request in s3_server.requests()[before:]] == ["HEAD", "DELETE"]
    assert storage.delete_telling_size("p/.f1_1.log.1_0-1-1") is None
    assert not s3_server.keys("sized-deletes")


def test_batch_deletes_on_s3_tell_the_files_already_gone(s3_server: Any) -> None:
    storage = Storage(s3_server.create_bucket("batch") + "/lake/t", s3_server.storage_options())
    names = [f"p/f{i:04d}.parquet" for i in range(1200)]  # more than one DeleteObjects request
    for name in names[:1100]:
        storage.write_if_absent(name, b"x")
    done = storage.delete_many(names)
    assert done.deleted == names[:1100] and done.gone == names[1100:] and done.failed == []
    listed = s3_server.client().list_objects_v2(Bucket="batch", Prefix="lake/t/")
    assert listed.get("KeyCount", 0) == 0  # no folder marker left behind


def test_a_files_ends_are_read_with_ranged_gets_and_no_head(s3_server: Any, tmp_path: Any) -> None:
    """Two ranged GETs for a file larger than its tail, one for a small file, what local
    storage reads for the same bytes; an empty file and a missing one."""
    storage = Storage(s3_server.create_bucket("ends") + "/t", s3_server.storage_options())
    local = Storage(str(tmp_path))
    contents = {
        "big.parquet": b"PAR1" + bytes(range(200)) + b"\x10\x00\x00\x00PAR1",
        "small": b"abc",
        "empty": b"",
    }
    for name, data in contents.items():
        storage.write_bytes(name, data)
        local.write_bytes(name, data)
    for name, expected_gets in (("big.parquet", 2), ("small", 1), ("empty", 1)):
        before = len(s3_server.requests())
        ends = storage.read_ends(name, 4, 8)
        sent = [request.method for request in s3_server.requests()[before:]]
        assert ends == local.read_ends(name, 4, 8), name
        assert sent == ["GET"] * expected_gets, (name, sent)
    with pytest.raises(StorageError, match="not found"):
        storage.read_ends("missing.parquet", 4, 8)


def test_a_whole_file_is_read_in_one_get(s3_server: Any) -> None:
    storage = Storage(s3_server.create_bucket("whole") + "/t", s3_server.storage_options())
    storage.write_bytes(".hoodie/hoodie.properties", b"hoodie.table.name=t\n")
    before = len(s3_server.requests())
    assert storage.read_bytes(".hoodie/hoodie.properties") == b"hoodie.table.name=t\n"
    assert [request.method for request in s3_server.requests()[before:]] == ["GET"]
    with pytest.raises(StorageError, match="file not found: s3://whole/t/absent"):
        storage.read_bytes("absent")


def test_a_base_file_of_known_size_is_read_without_a_head(s3_server: Any) -> None:
    """Compaction reads a base file whose size the listing gave with ranged GETs only (pyarrow
    opening it sends a HEAD first); a wrong size fails the read, it never misreads."""
    storage = Storage(s3_server.create_bucket("sized-reads") + "/t", s3_server.storage_options())
    table = pa.table({"k": [f"k{i}" for i in range(30000)], "v": list(range(30000))})
    out = pa.BufferOutputStream()
    pq.write_table(table, out, row_group_size=10000)
    data = out.getvalue().to_pybytes()
    storage.write_bytes("p/f.parquet", data)
    with BaseFileReader(storage, "p/f.parquet") as opened:
        expected = list(opened.row_groups())
    before = len(s3_server.requests())
    with BaseFileReader(storage, "p/f.parquet", len(data)) as sized:
        got = list(sized.row_groups())
    methods = [request.method for request in s3_server.requests()[before:]]
    assert "HEAD" not in methods and set(methods) == {"GET"}
    assert all(a.equals(b) for a, b in zip(got, expected, strict=True)) and len(got) == 3
    for wrong in (len(data) - 1, len(data) // 2):
        with (
            pytest.raises(CorruptFileError, match="cannot read base file"),
            BaseFileReader(storage, "p/f.parquet", wrong) as reader,
        ):
            list(reader.row_groups())


def test_a_properties_update_on_s3_never_leaves_the_table_without_its_properties(s3_server: Any) -> None:
    """Hudi's backup protocol, each file one PUT: the backup, then hoodie.properties replaced in
    place (never deleted first, so readers that ignore the backup open the table throughout),
    then the backup deleted."""
    storage = Storage(s3_server.create_bucket("properties-update") + "/t", s3_server.storage_options())
    storage.write_bytes(".hoodie/hoodie.properties", properties())
    before = len(s3_server.requests())
    modify_properties(
        storage,
        lambda current: {k: v for k, v in current.items() if k != "hoodie.table.partition.fields"},
        lambda values: format_java_properties(values).encode("latin-1"),
    )
    sent = s3_server.requests()[before:]
    changes = [(r.method, r.path.rpartition("/")[2]) for r in sent if r.method in ("PUT", "POST", "DELETE")]
    assert changes == [
        ("PUT", "hoodie.properties.backup"),
        ("PUT", "hoodie.properties"),
        ("DELETE", "hoodie.properties.backup"),
    ]
    assert load_config(storage).partition_fields == ()
    assert s3_server.keys("properties-update") == ["t/.hoodie/hoodie.properties"]


def test_orphans_quarantined_on_s3_come_back_byte_for_byte(s3_server: Any) -> None:
    """On an object store a move is a conditional create then a delete: the quarantine and its
    restore keep the bytes, and a taken name is refused."""
    from maintainer.errors import FileExistsInStorageError
    from maintainer.executors.orphans import OrphanToRemove, quarantine_orphans, read_batch, restore_batch

    storage = Storage(s3_server.create_bucket("orphan-moves") + "/t", s3_server.storage_options())
    storage.write_bytes("p/a.parquet", b"alpha" * 100)
    storage.write_bytes("p/b.parquet", b"beta")
    with pytest.raises(FileExistsInStorageError):
        storage.move_if_absent("p/a.parquet", "p/b.parquet")
    assert storage.read_bytes("p/b.parquet") == b"beta"
    quarantine_orphans(storage, [OrphanToRemove("p/a.parquet", 500)], ".hoodie/.q/b1")
    assert not storage.exists("p/a.parquet")
    done = restore_batch(storage, read_batch(storage, ".hoodie/.q/b1"))
    assert done.restored == ("p/a.parquet",) and done.emptied
    assert storage.read_bytes("p/a.parquet") == b"alpha" * 100
    assert s3_server.keys("orphan-moves") == ["t/p/a.parquet", "t/p/b.parquet"]
