"""Names-only listings of local folders: the entries a full listing gives, sizes and times asked
of the disk only when read, links to folders kept out."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from maintainer.storage import Storage
from maintainer.storage.columns import OptionalInts
from maintainer.storage.listing import DirListing
from maintainer.storage.names_only import list_names_only


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    root = tmp_path / "table"
    (root / "p=1" / "sub").mkdir(parents=True)
    (root / "p=1" / "a.parquet").write_bytes(b"12345")
    (root / "p=1" / ".hoodie_partition_metadata").write_bytes(b"x")
    (root / "p=1" / "empty.log").write_bytes(b"")
    elsewhere = tmp_path / "other"
    (elsewhere / "folder").mkdir(parents=True)
    (elsewhere / "target.parquet").write_bytes(b"1234567")
    (root / "p=1" / "linked_folder").symlink_to(elsewhere / "folder", target_is_directory=True)
    (root / "p=1" / "linked.parquet").symlink_to(elsewhere / "target.parquet")
    return Storage(str(root), listing_threads=4)


def entries(listing: DirListing) -> list[tuple[str, bool, int | None, int | None]]:
    return sorted(zip(listing.names, listing.is_dir, listing.sizes, listing.mtime_ns, strict=True))


def test_a_names_only_listing_gives_what_the_full_listing_gives_once_read(storage: Storage) -> None:
    full = storage.list_dir_columns("p=1")
    names_only = storage.list_dir_columns("p=1", sizes=False)
    assert not names_only.sizes_listed
    assert entries(names_only) == entries(full)
    assert names_only.sizes_listed  # read once, kept
    assert "linked_folder" not in names_only.names  # a linked folder is never part of the table
    assert dict(zip(names_only.names, names_only.sizes, strict=True))["linked.parquet"] == 7


def test_sizes_of_asks_only_for_the_files_named(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    listing = storage.list_dir_columns("p=1", sizes=False)
    asked: list[object] = []
    real_stat = os.stat

    def counting_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        asked.append(path)
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", counting_stat)
    assert listing.sizes_of(["a.parquet", "empty.log", "missing.parquet"]) == [5, 0, None]
    assert asked == ["a.parquet", "empty.log", "missing.parquet"]
    assert not listing.sizes_listed


def test_a_file_gone_since_the_listing_has_no_size(storage: Storage, tmp_path: Path) -> None:
    listing = storage.list_dir_columns("p=1", sizes=False)
    (tmp_path / "table" / "p=1" / "a.parquet").unlink()
    assert listing.sizes_of(["a.parquet"]) == [None]
    assert dict(zip(listing.names, listing.sizes, strict=True))["a.parquet"] is None


def test_a_missing_folder_lists_empty_and_a_file_is_refused(storage: Storage) -> None:
    assert len(storage.list_dir_columns("nowhere", sizes=False)) == 0
    with pytest.raises(Exception, match="cannot list"):
        storage.list_dir_columns("p=1/a.parquet", sizes=False)


def test_many_folders_list_names_only_in_parallel(storage: Storage, tmp_path: Path) -> None:
    for index in range(40):
        (tmp_path / "table" / f"q={index}").mkdir()
        (tmp_path / "table" / f"q={index}" / f"f{index}.parquet").write_bytes(b"x" * index)
    listed = storage.list_dirs_columns([f"q={i}" for i in range(40)], sizes=False)
    assert [listing.sizes_of([f"f{i}.parquet"]) for i, listing in enumerate(listed.values())] == [
        [i] for i in range(40)
    ]


def test_a_pickled_names_only_listing_carries_its_values(storage: Storage) -> None:
    listing = list_names_only(storage.full_path("p=1"), "p=1")
    copy = pickle.loads(pickle.dumps(listing))
    assert isinstance(copy.sizes, OptionalInts)
    assert entries(copy) == entries(storage.list_dir_columns("p=1"))
