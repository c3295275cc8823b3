"""Column-wise directory listings: the same entries as FileInfo listings, built lazily."""

from __future__ import annotations

import gc
import os
import pickle
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from maintainer.storage import FileInfo, Storage, fs, threads
from maintainer.storage.listing import DirListing, Listings
from maintainer.storage.threads import listing_pool


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    root = tmp_path / "table"
    (root / "p=1" / "sub").mkdir(parents=True)
    (root / "p=1" / "a.parquet").write_bytes(b"12345")
    (root / "p=1" / ".hoodie_partition_metadata").write_bytes(b"x")
    (root / "p=2").mkdir()
    (root / "top.txt").write_bytes(b"333")
    return Storage(str(root), listing_threads=4)


def test_columns_hold_the_entries_of_the_directory(storage: Storage) -> None:
    listing = storage.list_dir_columns("p=1/")
    assert listing.directory == "p=1"
    entries = sorted(zip(listing.names, listing.is_dir, strict=True))
    assert entries == [(".hoodie_partition_metadata", False), ("a.parquet", False), ("sub", True)]
    assert dict(zip(listing.names, listing.sizes, strict=True))["a.parquet"] == 5
    assert all(m is not None and m > 0 for m in listing.mtime_ns)
    assert listing.subdirectories() == ["sub"]
    assert listing.has_file_starting_with(".hoodie_partition")
    assert not listing.has_file_starting_with("sub")  # a directory is not a file
    assert listing.path_of("a.parquet") == "p=1/a.parquet"


def test_columns_and_file_infos_agree(storage: Storage) -> None:
    for directory in ("", "p=1", "p=2", "missing"):
        infos = storage.list_dir(directory)
        assert storage.list_dir_columns(directory).infos() == infos
        assert DirListing.from_infos(directory, infos).infos() == infos
    (top,) = [i for i in storage.list_dir("") if i.path == "top.txt"]
    assert top == FileInfo("top.txt", 3, False, top.mtime_ms) and top.mtime_ms is not None


def test_list_dirs_columns_keeps_the_order_asked(storage: Storage) -> None:
    listed = storage.list_dirs_columns(["p=2", "p=1", "missing"])
    assert list(listed) == ["p=2", "p=1", "missing"]
    assert len(listed["p=1"]) == 3 and len(listed["p=2"]) == 0 and len(listed["missing"]) == 0
    assert storage.list_dirs(["p=1"]) == {"p=1": storage.list_dir("p=1")}


def test_a_few_local_folders_are_listed_in_the_calling_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "many"
    folders = [f"p={index:02d}" for index in range(threads.LOCAL_LISTED_IN_THREAD + 1)]
    for folder in folders:
        (root / folder).mkdir(parents=True)
        (root / folder / "a.parquet").write_bytes(b"1")
    storage = Storage(str(root), listing_threads=4)
    pooled: list[int] = []
    real_pool = fs.listing_pool

    def counted_pool(threads: int) -> ThreadPoolExecutor:
        pooled.append(threads)
        return real_pool(threads)

    monkeypatch.setattr(fs, "listing_pool", counted_pool)
    few = storage.list_dirs_columns(folders[:-1])
    assert pooled == [] and all(list(listing.names) == ["a.parquet"] for listing in few.values())
    many = storage.list_dirs_columns(folders)
    assert pooled == [4] and list(many) == folders and many[folders[0]] == few[folders[0]]


def test_listings_read_as_a_mapping_of_file_info_tuples(storage: Storage) -> None:
    listings = Listings(storage.list_dirs_columns(["p=1", "p=2"]))
    assert list(listings) == ["p=1", "p=2"] and len(listings) == 2 and "p=1" in listings
    assert listings["p=1"] == tuple(storage.list_dir("p=1"))
    assert listings["p=1"] is listings["p=1"]  # built once
    assert listings == {"p=1": tuple(storage.list_dir("p=1")), "p=2": ()}
    assert listings.dir_listing("p=2").names == []
    with pytest.raises(KeyError):
        listings["p=3"]


def test_listings_subset_merged_and_pickled(storage: Storage) -> None:
    listings = Listings(storage.list_dirs_columns(["p=1", "p=2"]))
    assert list(listings.subset(["p=2", "p=9"])) == ["p=2"]
    merged = listings.merged({"": storage.list_dir_columns("")})
    assert list(merged) == ["p=1", "p=2", ""] and list(listings) == ["p=1", "p=2"]
    copy = pickle.loads(pickle.dumps(listings))
    assert copy == listings and copy.dir_listing("p=1") == listings.dir_listing("p=1")


def test_entries_added_to_listings_read_as_appended_file_infos(storage: Storage) -> None:
    listings = Listings(storage.list_dirs_columns(["p=1", "p=2"]))
    added = {"p=2": [FileInfo("p=2/new.parquet", 7, False)], "p=3": [FileInfo("p=3/x.parquet", 1, False)]}
    extended = listings.with_entries(added)
    assert extended == {**listings, **{p: tuple(infos) for p, infos in added.items()}}
    assert extended.dir_listing("p=1") is listings.dir_listing("p=1")  # untouched: the same columns
    assert extended.dir_listing("p=2") is not listings.dir_listing("p=2") and listings["p=2"] == ()
    more = [FileInfo("p=1/more.parquet", 3, False, 5)]
    assert Listings(storage.list_dirs_columns(["p=1"])).with_entries({"p=1": more})["p=1"] == (
        *storage.list_dir("p=1"),
        *more,
    )


def test_entries_removed_from_listings_leave_the_other_partitions_as_they_were(storage: Storage) -> None:
    listings = Listings(storage.list_dirs_columns(["p=1", "p=2"]))
    victim = listings["p=1"][0]
    reduced = listings.without([victim.path, "p=9/absent.parquet"])
    assert reduced["p=1"] == tuple(i for i in listings["p=1"] if i.path != victim.path)
    assert reduced["p=2"] == listings["p=2"] and reduced.dir_listing("p=2") is listings.dir_listing("p=2")
    assert set(reduced) == set(listings)


def test_a_directory_with_a_size_is_a_directory_where_the_file_system_may_size_one() -> None:
    """pyarrow's local file system never sizes a directory (the listing skips asking the type
    of sized entries there); an S3 folder marker or an HDFS directory may have a size."""
    infos = [
        pafs.FileInfo("t/p=1", pafs.FileType.Directory, size=0),
        pafs.FileInfo("t/f.parquet", pafs.FileType.File, size=7),
        pafs.FileInfo("t/p=2", pafs.FileType.Directory),
    ]
    assert DirListing.from_arrow("t", infos).is_dir == [True, False, True]
    local = DirListing.from_arrow("t", infos[1:], sized_entries_are_files=True)
    assert local.is_dir == [False, True] and local.subdirectories() == ["p=2"]


def test_the_local_file_system_gives_no_directory_a_size(tmp_path: Path) -> None:
    """What ``sized_entries_are_files`` rests on, asked of the installed pyarrow."""
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_bytes(b"")
    infos = pafs.LocalFileSystem().get_file_info(pafs.FileSelector(str(tmp_path)))
    sizes = {info.base_name: info.size for info in infos}
    assert sizes == {"d": None, "f": 0}


def listing_threads_alive() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("maintainer-listing"))


def test_listings_reuse_one_pool_per_thread_and_process(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Table after table, a thread lists with the same pool (no threads started per table); a
    forked child (another process id) gets its own; another thread has its own."""
    before = listing_threads_alive()
    first = listing_pool(storage.listing_threads)
    for _ in range(5):
        storage.list_dirs_columns(["p=1", "p=2", ""])
    assert listing_pool(storage.listing_threads) is first
    assert listing_threads_alive() - before <= storage.listing_threads  # the pool's, at most
    other: list[object] = []
    worker = threading.Thread(target=lambda: other.append(listing_pool(storage.listing_threads)))
    worker.start()
    worker.join()
    assert other and other[0] is not first
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert listing_pool(storage.listing_threads) is not first


def test_the_pool_of_a_thread_that_ended_stops_its_threads(storage: Storage) -> None:
    before = listing_threads_alive()
    worker = threading.Thread(target=lambda: storage.list_dirs_columns(["p=1", "p=2", ""]))
    worker.start()
    worker.join()
    del worker
    deadline = time.monotonic() + 10
    while listing_threads_alive() > before and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert listing_threads_alive() <= before
