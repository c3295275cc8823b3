"""``Storage.move_if_absent``: a file moved byte for byte under a name that must be free, never
through a link, never outside the root, and a move cut short finished by moving again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from maintainer.errors import FileExistsInStorageError, StorageError
from maintainer.storage import Storage


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "t" / "p").mkdir(parents=True)
    (tmp_path / "t" / "p" / "a.parquet").write_bytes(b"alpha")
    return tmp_path / "t"


def test_a_file_moves_with_its_bytes_and_time(root: Path) -> None:
    os.utime(root / "p" / "a.parquet", (1_000_000, 1_000_000))
    Storage(str(root)).move_if_absent("p/a.parquet", ".hoodie/.q/b/files/p/a.parquet")
    moved = root / ".hoodie" / ".q" / "b" / "files" / "p" / "a.parquet"
    assert moved.read_bytes() == b"alpha" and moved.stat().st_mtime == 1_000_000
    assert not (root / "p" / "a.parquet").exists()


def test_a_taken_name_is_refused_and_nothing_moves(root: Path) -> None:
    (root / "p" / "b.parquet").write_bytes(b"beta")
    with pytest.raises(FileExistsInStorageError, match="already exists"):
        Storage(str(root)).move_if_absent("p/a.parquet", "p/b.parquet")
    assert (root / "p" / "a.parquet").read_bytes() == b"alpha"
    assert (root / "p" / "b.parquet").read_bytes() == b"beta"


def test_a_move_cut_short_after_the_link_is_finished_by_moving_again(root: Path) -> None:
    os.link(root / "p" / "a.parquet", root / "p" / "c.parquet")  # linked, not yet unlinked
    Storage(str(root)).move_if_absent("p/a.parquet", "p/c.parquet")
    assert not (root / "p" / "a.parquet").exists()
    assert (root / "p" / "c.parquet").read_bytes() == b"alpha"


def test_a_link_is_never_moved_nor_followed(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.parquet"
    outside.write_bytes(b"secret")
    (root / "p" / "l.parquet").symlink_to(outside)
    with pytest.raises(StorageError, match=r"refusing to move .* symbolic link"):
        Storage(str(root)).move_if_absent("p/l.parquet", "p/m.parquet")
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StorageError, match="outside the table"):
        Storage(str(root)).move_if_absent("p/a.parquet", "linked/a.parquet")
    assert outside.read_bytes() == b"secret" and not any((tmp_path / "elsewhere").iterdir())
    assert (root / "p" / "a.parquet").exists()


def test_a_missing_source_says_it_is_gone(root: Path) -> None:
    with pytest.raises(StorageError, match="it is gone"):
        Storage(str(root)).move_if_absent("p/none.parquet", "p/x.parquet")
