"""Deleting and quarantining orphan files, and restoring a quarantine batch: the batch record
is written before the first move; a restore never overwrites a file that is back in place
(unless it holds the same bytes: a move cut short); an unreadable record says what to do."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from maintainer.errors import CorruptFileError
from maintainer.executors.faults import InjectedFault
from maintainer.executors.orphans import (
    OrphanToRemove,
    batch_name,
    delete_orphans,
    list_batches,
    quarantine_orphans,
    read_batch,
    restore_batch,
)
from maintainer.storage import Storage

BATCH = ".hoodie/.quarantine/b1"


@pytest.fixture
def table(tmp_path: Path) -> Storage:
    root = tmp_path / "t"
    for name, data in {"p/a.parquet": b"a" * 10, "p/b.parquet": b"b" * 20, "q/c.log": b"c"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return Storage(str(root))


FILES = [OrphanToRemove("p/a.parquet", 10), OrphanToRemove("p/b.parquet", 20)]


def test_delete_reports_what_was_deleted_and_what_was_gone(table: Storage) -> None:
    done = delete_orphans(table, [*FILES, OrphanToRemove("p/none.parquet", 3)])
    assert [o.path for o in done.removed] == ["p/a.parquet", "p/b.parquet"] and done.bytes == 30
    assert done.gone == ("p/none.parquet",) and done.batch is None
    assert not table.exists("p/a.parquet") and table.exists("q/c.log")


def test_quarantine_then_restore_gives_back_the_same_bytes(table: Storage) -> None:
    done = quarantine_orphans(table, FILES, BATCH)
    assert done.batch == BATCH and done.bytes == 30 and not table.exists("p/a.parquet")
    (batch,) = list_batches(table, ".hoodie/.quarantine")
    assert batch.present == ("p/a.parquet", "p/b.parquet") and batch.bytes == 30
    restored = restore_batch(table, batch)
    assert restored.restored == ("p/a.parquet", "p/b.parquet") and restored.emptied
    assert table.read_bytes("p/a.parquet") == b"a" * 10 and not table.exists(BATCH)


def test_the_batch_record_comes_before_the_first_move(table: Storage) -> None:
    def crash(point: str) -> None:
        if point == "after_batch_record":
            raise InjectedFault("killed")

    with pytest.raises(InjectedFault):
        quarantine_orphans(table, FILES, BATCH, crash)
    record = json.loads(table.read_bytes(f"{BATCH}/batch.json"))
    assert [f["path"] for f in record["files"]] == ["p/a.parquet", "p/b.parquet"]
    assert table.exists("p/a.parquet")
    batch = read_batch(table, BATCH)
    assert batch.present == () and restore_batch(table, batch).emptied


def test_restore_leaves_a_file_back_in_place_with_other_bytes(table: Storage) -> None:
    quarantine_orphans(table, FILES, BATCH)
    table.write_bytes("p/a.parquet", b"someone else's")
    table.write_bytes("p/b.parquet", b"b" * 20)  # the same bytes: a move cut short, finished
    done = restore_batch(table, read_batch(table, BATCH))
    assert [path for path, _ in done.refused] == ["p/a.parquet"] and done.restored == ("p/b.parquet",)
    assert not done.emptied and table.read_bytes("p/a.parquet") == b"someone else's"
    assert read_batch(table, BATCH).present == ("p/a.parquet",)


def test_an_unreadable_batch_record_says_what_to_do(table: Storage) -> None:
    table.write_bytes(f"{BATCH}/batch.json", b"{not json")
    with pytest.raises(CorruptFileError, match=r"batch record .* unreadable") as caught:
        read_batch(table, BATCH)
    assert caught.value.hint is not None and "files/ folder" in caught.value.hint


def test_batch_names_sort_by_time_and_differ_per_apply() -> None:
    now = datetime(2026, 11, 28, 10, 15, tzinfo=UTC)
    first, second = batch_name(now, "3fab58c18d0e77"), batch_name(now, "3fab58c18d0e77")
    assert first.startswith("20261128T101500Z-3fab58c18d0e-") and first != second
