"""Atomic whole-file writes on local disk: a write killed half-way leaves the old file (or no
file) under the real name, and only a temporary file that readers ignore and apply sweeps."""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from maintainer.errors import FileExistsInStorageError
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.instants.instant import parse_instant_file_name
from maintainer.storage import Storage, atomic, fs


class SimulatedKill(BaseException):
    """What the fault hook's kill is replaced by here (no cleanup runs, as after kill -9)."""


@pytest.fixture
def killed_mid_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arm the hook for the next atomic write; its kill raises :class:`SimulatedKill`."""

    def crash() -> None:
        raise SimulatedKill

    monkeypatch.setattr(atomic, "crash", crash)
    monkeypatch.setattr(atomic, "_COUNTER", atomic._WriteCounter())
    monkeypatch.setenv(atomic.PARTIAL_WRITE_ENV, "1")


def _temps(folder: Path) -> list[Path]:
    return [path for path in folder.iterdir() if atomic.is_temp_name(path.name)]


def test_write_bytes_replaces_the_whole_file(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    storage.write_bytes("a/f.json", b"old")
    storage.write_bytes("a/f.json", b"new content")
    assert (tmp_path / "a" / "f.json").read_bytes() == b"new content"
    assert _temps(tmp_path / "a") == []


@pytest.mark.usefixtures("killed_mid_write")
def test_a_kill_mid_overwrite_leaves_the_old_file_whole(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_bytes(b"old content")
    with pytest.raises(SimulatedKill):
        Storage(str(tmp_path)).write_bytes("f.json", b"0123456789")
    assert (tmp_path / "f.json").read_bytes() == b"old content"
    (temp,) = _temps(tmp_path)
    assert temp.read_bytes() == b"01234"  # half the bytes, where a real kill leaves them


@pytest.mark.usefixtures("killed_mid_write")
def test_a_kill_mid_create_leaves_no_file_under_the_name(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    with pytest.raises(SimulatedKill):
        storage.write_if_absent(".hoodie/20250101000000000.clean", b"0123456789")
    assert not (tmp_path / ".hoodie" / "20250101000000000.clean").exists()
    assert len(_temps(tmp_path / ".hoodie")) == 1
    os.environ.pop(atomic.PARTIAL_WRITE_ENV)
    storage.write_if_absent(".hoodie/20250101000000000.clean", b"0123456789")  # the retry succeeds
    assert (tmp_path / ".hoodie" / "20250101000000000.clean").read_bytes() == b"0123456789"


def test_write_if_absent_refuses_an_existing_file_and_leaves_no_temp(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    storage.write_if_absent("x.commit", b"first")
    with pytest.raises(FileExistsInStorageError):
        storage.write_if_absent("x.commit", b"second")
    assert (tmp_path / "x.commit").read_bytes() == b"first"
    assert _temps(tmp_path) == []


def test_create_if_absent_has_one_winner_among_racing_writers(tmp_path: Path) -> None:
    target = str(tmp_path / "race")
    outcomes: list[str] = []

    def create(data: bytes) -> None:
        try:
            atomic.create_file(target, data)
            outcomes.append("created")
        except FileExistsError:
            outcomes.append("refused")

    threads = [threading.Thread(target=create, args=(bytes([i]) * 100,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("created") == 1
    content = Path(target).read_bytes()
    assert len(content) == 100 and len(set(content)) == 1  # one writer's bytes, whole


def test_temporary_names_are_no_table_file_to_any_parser() -> None:
    name = atomic.temp_name()
    assert atomic.is_temp_name(name)
    assert parse_instant_file_name(name) is None
    assert BaseFileName.parse(name) is None and LogFileName.parse(name) is None
    assert "_" not in name and ".log" not in name  # Hudi's log pattern needs both


def test_sweep_removes_leftover_temporary_files_only(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    storage.write_bytes(".hoodie/keep.commit", b"x")
    leftover = tmp_path / ".hoodie" / atomic.temp_name()
    leftover.write_bytes(b"half")
    assert storage.sweep_temp_files([".hoodie", "missing"]) == [f".hoodie/{leftover.name}"]
    assert sorted(p.name for p in (tmp_path / ".hoodie").iterdir()) == ["keep.commit"]


def test_the_census_records_every_atomic_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    census = tmp_path / "census.txt"
    monkeypatch.setattr(atomic, "_COUNTER", atomic._WriteCounter())
    monkeypatch.setenv(atomic.PARTIAL_WRITE_ENV, f"count:{census}")
    storage = Storage(str(tmp_path / "t"))
    storage.write_bytes("a", b"1")
    storage.write_if_absent("b", b"2")
    lines = census.read_text().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2"]
    assert lines[1].endswith("/t/b")


def test_a_scratch_storage_skips_fsync_and_keeps_it_through_pickling_and_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    scratch = Storage(str(tmp_path), durable=False)
    scratch.write_bytes("a", b"1")
    pickle.loads(pickle.dumps(scratch)).write_if_absent("b", b"2")
    scratch.child("sub").write_bytes("c", b"3")
    assert synced == []
    Storage(str(tmp_path)).write_bytes("d", b"4")
    assert len(synced) == 1
    assert (tmp_path / "sub" / "c").read_bytes() == b"3"


def test_a_folder_store_other_than_local_disk_writes_through_a_renamed_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HDFS's path (pyarrow's ``move`` renames over the target), run on a pyarrow file system
    over local disk that maintainer does not treat as local."""
    monkeypatch.setattr(fs, "FOLDER_FILE_SYSTEMS", frozenset({"local", "hdfs", "subtree"}))
    storage = Storage(str(tmp_path))
    storage._fs = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    storage._root = "t"
    streamed: list[str] = []
    stream = storage._write_stream

    def recorded(path: str, data: bytes) -> None:
        streamed.append(path)
        stream(path, data)

    monkeypatch.setattr(storage, "_write_stream", recorded)
    assert not storage.is_local
    storage.write_bytes(".hoodie/hoodie.properties", b"old")
    storage.write_bytes(".hoodie/hoodie.properties", b"new")
    storage.write_if_absent(".hoodie/1.commit", b"c")
    with pytest.raises(FileExistsInStorageError):
        storage.write_if_absent(".hoodie/1.commit", b"d")
    folder = tmp_path / "t" / ".hoodie"
    assert (folder / "hoodie.properties").read_bytes() == b"new"
    assert (folder / "1.commit").read_bytes() == b"c"
    assert len(streamed) == 3 and all(atomic.is_temp_name(path.rpartition("/")[2]) for path in streamed)
    assert _temps(folder) == []
