"""Batch deletes on local storage: deleted, already gone, and refused (a link, a folder that
resolves outside the table), each said, none raised."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from maintainer.storage import Storage, local


def test_deleted_gone_and_refused_are_told_apart(tmp_path: Path) -> None:
    table = tmp_path / "t"
    (table / "p").mkdir(parents=True)
    for name in ("a.parquet", "b.parquet"):
        (table / "p" / name).write_bytes(b"x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.parquet").write_bytes(b"keep me")
    os.symlink(outside / "c.parquet", table / "p" / "link.parquet")
    os.symlink(outside, table / "q")

    done = Storage(str(table)).delete_many(
        ["p/a.parquet", "p/b.parquet", "p/gone.parquet", "p/link.parquet", "q/c.parquet"]
    )
    assert done.deleted == ["p/a.parquet", "p/b.parquet"]
    assert done.gone == ["p/gone.parquet"]
    assert [path for path, _ in done.failed] == ["p/link.parquet", "q/c.parquet"]
    assert "symbolic link" in done.failed[0][1] and "outside the table" in done.failed[1][1]
    assert (outside / "c.parquet").read_bytes() == b"keep me"
    assert sorted(p.name for p in (table / "p").iterdir()) == ["link.parquet"]


def test_a_folder_swapped_for_a_link_mid_delete_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder is replaced by a link to files of the same names outside the table right
    after it was opened and checked: the deletes happen in the folder that was checked, the
    files outside stay."""
    table, outside = tmp_path / "t", tmp_path / "outside"
    (table / "p").mkdir(parents=True)
    outside.mkdir()
    for name in ("a.parquet", "b.parquet"):
        (table / "p" / name).write_bytes(b"table")
        (outside / name).write_bytes(b"keep me")
    real_scandir = os.scandir

    def swap_then_scan(handle: int) -> Any:
        os.rename(table / "p", table / "p-moved")
        os.symlink(outside, table / "p")
        return real_scandir(handle)

    monkeypatch.setattr(os, "scandir", swap_then_scan)
    done = Storage(str(table)).delete_many(["p/a.parquet", "p/b.parquet"])
    assert done.deleted == ["p/a.parquet", "p/b.parquet"]
    assert sorted(p.name for p in outside.iterdir()) == ["a.parquet", "b.parquet"]
    assert list((table / "p-moved").iterdir()) == []


def test_a_folder_resolving_elsewhere_than_the_one_opened_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swapped between the open and the check of where it resolves: the folder opened is not
    the one proven inside the table, so nothing in it is deleted."""
    table = tmp_path / "t"
    (table / "p").mkdir(parents=True)
    (table / "p" / "a.parquet").write_bytes(b"x")
    (table / "other").mkdir()
    real_realpath = os.path.realpath

    def moved(path: Any) -> str:
        resolved = real_realpath(path)
        return str(table / "other") if resolved == str(table / "p") else resolved

    monkeypatch.setattr(os.path, "realpath", moved)
    monkeypatch.setattr(local, "_PROC_FD", str(tmp_path / "no-proc"))  # where /proc names no descriptor
    done = Storage(str(table)).delete_many(["p/a.parquet"])
    assert [path for path, _ in done.failed] == ["p/a.parquet"] and (table / "p" / "a.parquet").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="Linux names open descriptors in /proc")
def test_the_opened_folder_is_where_proc_says_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where /proc names the descriptor's folder is what must lie inside the table (a path
    resolved again could already name another folder)."""
    table = tmp_path / "t"
    (table / "p").mkdir(parents=True)
    (table / "p" / "a.parquet").write_bytes(b"x")
    (table / "q").mkdir()
    (table / "q" / "b.parquet").write_bytes(b"y")
    real_readlink = os.readlink

    def elsewhere(path: Any, *args: Any, **kwargs: Any) -> str:
        found = real_readlink(path, *args, **kwargs)
        return str(tmp_path / "outside") if found == str(table / "p") else found

    monkeypatch.setattr(os, "readlink", elsewhere)
    done = Storage(str(table)).delete_many(["p/a.parquet", "q/b.parquet"])
    assert [path for path, _ in done.failed] == ["p/a.parquet"] and (table / "p" / "a.parquet").exists()
    assert done.deleted == ["q/b.parquet"] and not (table / "q" / "b.parquet").exists()


def test_a_proc_that_names_no_descriptor_falls_back_to_resolving_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "t"
    (table / "p").mkdir(parents=True)
    (table / "p" / "a.parquet").write_bytes(b"x")
    proc = tmp_path / "proc-fd"
    proc.mkdir()  # a folder, but with no entry per descriptor
    monkeypatch.setattr(local, "_PROC_FD", str(proc))
    done = Storage(str(table)).delete_many(["p/a.parquet"])
    assert done.deleted == ["p/a.parquet"] and not (table / "p" / "a.parquet").exists()
