"""Storage over pyarrow.fs, on a temporary local directory."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from maintainer.errors import FileExistsInStorageError, StorageError
from maintainer.storage import FileInfo, Storage


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    root = tmp_path / "table"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "one.txt").write_bytes(b"1")
    (root / "a" / "b" / "two.txt").write_bytes(b"22")
    (root / "top.txt").write_bytes(b"333")
    return Storage(str(root), listing_threads=4)


def _names(infos: list[FileInfo]) -> list[tuple[str, int, bool]]:
    return sorted((i.path, i.size if not i.is_dir else 0, i.is_dir) for i in infos)


def test_list_dir_gives_root_relative_entries(storage: Storage) -> None:
    assert _names(storage.list_dir("")) == [("a", 0, True), ("top.txt", 3, False)]
    assert _names(storage.list_dir("a")) == [("a/b", 0, True), ("a/one.txt", 1, False)]
    (entry,) = [i for i in storage.list_dir("a") if not i.is_dir]
    assert entry.name == "one.txt" and entry.mtime_ms is not None and entry.mtime_ms > 0


def test_list_dir_of_a_missing_directory_is_empty(storage: Storage) -> None:
    assert storage.list_dir("nope") == []


def test_list_dirs_lists_many_directories(storage: Storage) -> None:
    listed = storage.list_dirs(["a", "a/b", "missing"])
    assert list(listed) == ["a", "a/b", "missing"]
    assert _names(listed["a/b"]) == [("a/b/two.txt", 2, False)]
    assert listed["missing"] == []
    assert _names(storage.list_dirs(["a/b"])["a/b"]) == [("a/b/two.txt", 2, False)]
    assert storage.list_dirs([]) == {}


def test_list_recursive(storage: Storage) -> None:
    assert _names(storage.list_recursive()) == [
        ("a", 0, True),
        ("a/b", 0, True),
        ("a/b/two.txt", 2, False),
        ("a/one.txt", 1, False),
        ("top.txt", 3, False),
    ]
    assert _names(storage.list_recursive("a/b")) == [("a/b/two.txt", 2, False)]


def test_read_and_stat(storage: Storage) -> None:
    assert storage.read_bytes("a/b/two.txt") == b"22"
    assert storage.stat("top.txt") == FileInfo("top.txt", 3, False, storage.stat("top.txt").mtime_ms)  # type: ignore[union-attr]
    assert storage.stat("missing") is None
    assert storage.exists("a") and not storage.exists("missing")
    with storage.open_input_file("top.txt") as handle:
        assert handle.read() == b"333"


def test_read_missing_file_names_it(storage: Storage) -> None:
    with pytest.raises(StorageError, match=r"missing\.txt"):
        storage.read_bytes("missing.txt")
    with pytest.raises(StorageError, match=r"missing\.txt"):
        storage.open_input_file("missing.txt")


def test_read_bytes_reads_whole_large_files_and_refuses_a_folder(storage: Storage) -> None:
    data = bytes(range(256)) * 40_000  # 10 MB: more than one read of a stream's buffer
    storage.write_bytes("big.bin", data)
    assert storage.read_bytes("big.bin") == data
    with pytest.raises(StorageError, match="a/b"):
        storage.read_bytes("a/b")


def test_write_bytes_overwrites_and_creates_parents(storage: Storage) -> None:
    storage.write_bytes("new/dir/f.bin", b"x")
    storage.write_bytes("new/dir/f.bin", b"yz")
    assert storage.read_bytes("new/dir/f.bin") == b"yz"


def test_write_if_absent_creates_then_refuses(storage: Storage) -> None:
    storage.write_if_absent(".hoodie/20240101000000000.commit.requested", b"")
    assert storage.read_bytes(".hoodie/20240101000000000.commit.requested") == b""
    with pytest.raises(FileExistsInStorageError, match="already exists"):
        storage.write_if_absent(".hoodie/20240101000000000.commit.requested", b"other")
    with pytest.raises(FileExistsInStorageError):
        storage.write_if_absent("top.txt", b"never")
    assert storage.read_bytes("top.txt") == b"333"


def test_delete_file(storage: Storage) -> None:
    assert storage.delete("top.txt") is True
    assert not storage.exists("top.txt")
    assert storage.delete("top.txt") is False
    assert storage.delete("never/was.txt") is False


def test_a_delete_can_tell_the_size_of_what_it_deleted(storage: Storage) -> None:
    assert storage.delete_telling_size("top.txt") == 3
    assert not storage.exists("top.txt")
    assert storage.delete_telling_size("top.txt") is None
    assert storage.delete_telling_size("never/was.txt") is None


def test_delete_dir(storage: Storage) -> None:
    assert storage.delete_dir("a") is True
    assert not storage.exists("a") and not storage.exists("a/b/two.txt")
    assert storage.delete_dir("a") is False


def test_uri_and_full_path(storage: Storage, tmp_path: Path) -> None:
    root = str(tmp_path / "table")
    assert storage.base_uri == root
    assert storage.uri("a/one.txt") == f"file:{root}/a/one.txt"
    assert storage.uri("") == f"file:{root}"
    assert storage.full_path("/a/") == f"{root}/a"
    assert storage.is_local
    assert repr(storage) == f"Storage({root!r})"


def test_file_uri_and_relative_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "f").write_bytes(b"f")
    assert Storage(f"file://{tmp_path}/t").read_bytes("f") == b"f"
    monkeypatch.chdir(tmp_path)
    assert Storage("t/").base_uri == str(tmp_path / "t")


def test_child_storage(storage: Storage) -> None:
    child = storage.child("a")
    assert child.read_bytes("b/two.txt") == b"22"
    assert _names(child.list_dir("b")) == [("b/two.txt", 2, False)]


def test_pickling_round_trip(storage: Storage) -> None:
    clone = pickle.loads(pickle.dumps(storage))
    assert clone.base_uri == storage.base_uri
    assert clone.listing_threads == 4 and clone.options == storage.options
    assert clone.read_bytes("a/one.txt") == b"1"
    assert _names(clone.list_dir("a")) == _names(storage.list_dir("a"))


def test_unknown_scheme_is_a_storage_error() -> None:
    with pytest.raises(StorageError, match="cannot open storage"):
        Storage("nosuchscheme://bucket/table")


def test_paused_gc_is_reentrant_and_restores_the_collector() -> None:
    import gc

    from maintainer.storage.gc_pause import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


class _Node:
    def __init__(self) -> None:
        self.other: object = None


def test_objects_built_while_paused_leave_the_young_generations_and_cycles_are_still_collected() -> None:
    import gc
    import weakref

    from maintainer.storage.gc_pause import paused_gc

    with paused_gc():
        built = [_Node() for _ in range(5000)]
        first, second = _Node(), _Node()
        first.other, second.other = second, first  # a cycle, garbage once the pause ends
        watch = weakref.ref(first)
        del first, second
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 100  # no young generation full of what was just built
    assert watch() is not None  # nothing scanned it yet
    gc.collect()
    assert watch() is None and len(built) == 5000


def test_listing_a_file_as_a_directory_is_a_storage_error(storage: Storage) -> None:
    with pytest.raises(StorageError, match="cannot list"):
        storage.list_dir("top.txt")


@pytest.fixture
def neighbour(tmp_path: Path) -> Path:
    """Another table beside ``storage``'s, with one partition and one file."""
    other = tmp_path / "other" / "p=1"
    other.mkdir(parents=True)
    (other / "victim.parquet").write_bytes(b"data")
    return other


def test_a_linked_folder_is_not_listed(storage: Storage, neighbour: Path, tmp_path: Path) -> None:
    (tmp_path / "table" / "p=9").symlink_to(neighbour, target_is_directory=True)
    assert "p=9" not in {i.path for i in storage.list_dir("")}
    assert storage.list_dirs_columns(["", "a"])[""].subdirectories() == ["a"]


def test_deletes_never_leave_the_table(storage: Storage, neighbour: Path, tmp_path: Path) -> None:
    root = tmp_path / "table"
    (root / "p=9").symlink_to(neighbour, target_is_directory=True)
    (root / "a" / "link.parquet").symlink_to(neighbour / "victim.parquet")
    for path in ("p=9/victim.parquet", "../other/p=1/victim.parquet", "a/link.parquet"):
        with pytest.raises(StorageError, match="refusing to delete"):
            storage.delete(path)
        with pytest.raises(StorageError, match="refusing to delete"):
            storage.delete_telling_size(path)
    with pytest.raises(StorageError, match="outside the table"):
        storage.delete_dir("../other/p=1")
    with pytest.raises(StorageError, match="symbolic link"):
        storage.delete_dir("p=9")
    assert (neighbour / "victim.parquet").read_bytes() == b"data"
    assert (root / "a" / "link.parquet").is_symlink()
    assert storage.delete("a/one.txt") is True


def test_a_table_reached_through_a_linked_root_deletes_inside_it(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "p").mkdir(parents=True)
    (real / "p" / "f.parquet").write_bytes(b"x")
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    assert Storage(str(tmp_path / "alias")).delete("p/f.parquet") is True


def test_a_files_ends_and_size(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    storage.write_bytes("f", b"0123456789")
    storage.write_bytes("small", b"ab")
    storage.write_bytes("empty", b"")
    assert storage.read_ends("f", 4, 8) == (b"0123", b"23456789", 10)
    assert storage.read_ends("small", 4, 8) == (b"ab", b"ab", 2)
    assert storage.read_ends("empty", 4, 8) == (b"", b"", 0)
    with pytest.raises(StorageError, match="not found"):
        storage.read_ends("missing", 4, 8)
