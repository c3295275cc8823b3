"""A table service's completion cut short is read as inflight and undone by the recovery apply
runs under the lock; anything else undecodable stays damage (tables laid out by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.hudi import payloads
from maintainer.hudi.file_groups.integrity import CorruptTableError, find_interrupted_completions
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.recovery import recover_interrupted_writes
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage, atomic
from tests.unit.hudi.file_groups.test_integrity import T1, T2, mor_table, parquet_bytes
from tests.unit.hudi.payloads.samples import savepoint_metadata
from tests.unit.hudi.table.test_snapshot import properties, touch


def _table(root: Path) -> Storage:
    base = parquet_bytes()
    return mor_table(root, base, b"x" * 300, len(base), (300,))


def _savepoint(root: Path, completed: bytes, inflight: bool = True) -> None:
    encoded = payloads.encode_avro(savepoint_metadata())
    if inflight:
        touch(root, f".hoodie/{T2}.savepoint.inflight", encoded)
    touch(root, f".hoodie/{T2}.savepoint", completed)


def _savepoint_state(storage: Storage) -> State:
    timeline = open_table(storage.base_uri).snapshot.timeline
    entry = timeline.entry(T2, Action.SAVEPOINT)
    assert entry is not None
    return entry.instant.state


def test_a_cut_short_completion_is_read_as_inflight(tmp_path: Path) -> None:
    storage = _table(tmp_path)
    encoded = payloads.encode_avro(savepoint_metadata())
    _savepoint(tmp_path, encoded[: len(encoded) // 2])
    table = open_table(str(tmp_path))
    (item,) = table.interrupted
    assert item.path == f".hoodie/{T2}.savepoint" and item.instant.timestamp == T2
    assert "read as inflight" in item.describe()
    assert _savepoint_state(storage) is State.INFLIGHT


def test_a_whole_completion_is_completed(tmp_path: Path) -> None:
    storage = _table(tmp_path)
    _savepoint(tmp_path, payloads.encode_avro(savepoint_metadata()))
    assert find_interrupted_completions(storage, load_timeline(storage, load_config(storage))) == []
    assert _savepoint_state(storage) is State.COMPLETED


def test_an_undecodable_completion_without_its_inflight_file_stays_damage(tmp_path: Path) -> None:
    """Nothing says it was being written: it is not overwritten, the table is refused."""
    _table(tmp_path)
    _savepoint(tmp_path, b"Obj\x01garbage", inflight=False)
    with pytest.raises(CorruptTableError, match="savepoint"):
        open_table(str(tmp_path))
    assert recover_interrupted_writes(Storage(str(tmp_path))) == []
    assert (tmp_path / ".hoodie" / f"{T2}.savepoint").read_bytes() == b"Obj\x01garbage"


def test_an_undecodable_data_commit_is_never_taken_for_a_cut_completion(tmp_path: Path) -> None:
    """A write's commit (not a table service) is left to the user: undoing it could lose rows."""
    _table(tmp_path)
    touch(tmp_path, f".hoodie/{T1}.deltacommit", b"{not json")
    with pytest.raises(CorruptTableError, match="deltacommit"):
        open_table(str(tmp_path))
    assert recover_interrupted_writes(Storage(str(tmp_path))) == []


def test_recovery_deletes_the_cut_file_and_the_leftover_temporary_files(tmp_path: Path) -> None:
    storage = _table(tmp_path)
    _savepoint(tmp_path, b"Obj\x01half")
    leftover = tmp_path / ".hoodie" / atomic.temp_name()
    leftover.write_bytes(b"half a file")
    done = recover_interrupted_writes(storage)
    assert len(done) == 2 and "completed anew" in done[0] and "killed half-way" in done[1]
    assert not (tmp_path / ".hoodie" / f"{T2}.savepoint").exists() and not leftover.exists()
    assert _savepoint_state(storage) is State.INFLIGHT
    assert recover_interrupted_writes(storage) == []  # nothing left to do


def test_recovery_restores_properties_from_the_backup(tmp_path: Path) -> None:
    storage = _table(tmp_path)
    (tmp_path / ".hoodie" / "hoodie.properties").unlink()
    touch(tmp_path, ".hoodie/hoodie.properties.backup", properties())
    (done,) = recover_interrupted_writes(storage)
    assert "recovered" in done
    assert (tmp_path / ".hoodie" / "hoodie.properties").read_bytes() == properties()


def test_recovery_leaves_a_folder_without_a_table_alone(tmp_path: Path) -> None:
    assert recover_interrupted_writes(Storage(str(tmp_path))) == []


def test_an_empty_completion_beside_its_inflight_file_was_cut_short(tmp_path: Path) -> None:
    """Created, never written: Hudi cannot read an empty savepoint, clean or rollback either."""
    storage = _table(tmp_path)
    _savepoint(tmp_path, b"")
    (item,) = open_table(str(tmp_path)).interrupted
    assert "empty" in item.problem
    assert _savepoint_state(storage) is State.INFLIGHT


def test_recovery_deletes_a_heartbeat_write_killed_half_way(tmp_path: Path) -> None:
    """Heartbeats are rewritten atomically too: a kill mid-beat leaves a temporary file beside
    them, in the data table's and the metadata table's heartbeat folders."""
    storage = _table(tmp_path)
    leftovers = [tmp_path / ".hoodie/.heartbeat", tmp_path / ".hoodie/metadata/.hoodie/.heartbeat"]
    for folder in leftovers:
        folder.mkdir(parents=True)
        (folder / atomic.temp_name()).write_bytes(b"")
    done = recover_interrupted_writes(storage)
    assert len(done) == 2 and all("killed half-way" in line for line in done)
    assert all(not any(folder.iterdir()) for folder in leftovers)
