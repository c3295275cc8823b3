"""``hoodie.properties`` changed through Hudi's backup protocol, and recovered as Hudi recovers
it: a crash between any two steps leaves a table that reads (the old or the new properties) and
that the next recovery leaves with one valid file and no backup."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi.config.java_properties import format_java_properties, parse_java_properties
from maintainer.hudi.config.properties_update import modify_properties, recover_properties
from maintainer.hudi.table.snapshot import load_config
from maintainer.storage import Storage
from tests.unit.hudi.table.test_snapshot import properties, touch

FILE = ".hoodie/hoodie.properties"
BACKUP = ".hoodie/hoodie.properties.backup"


class Crash(Exception):
    """The process dies here."""


class CrashingStorage(Storage):
    """A storage whose ``crash_at``-th change (write or delete) never happens: the process died."""

    def __init__(self, root: str, crash_at: int) -> None:
        super().__init__(root)
        self.crash_at = crash_at
        self.changes = 0

    def _change(self) -> None:
        self.changes += 1
        if self.changes == self.crash_at:
            raise Crash

    def write_bytes(self, path: str, data: bytes) -> None:
        self._change()
        super().write_bytes(path, data)

    def write_if_absent(self, path: str, data: bytes) -> None:
        self._change()
        super().write_if_absent(path, data)

    def delete(self, path: str) -> bool:
        self._change()
        return super().delete(path)


def _without_region(current: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in current.items() if key != "hoodie.table.partition.fields"}


def _render(values: Mapping[str, Any]) -> bytes:
    return format_java_properties(values, ("updated",)).encode("latin-1")


def _partition_fields(root: Path) -> tuple[str, ...]:
    return load_config(Storage(str(root))).partition_fields


def test_modify_replaces_the_file_and_leaves_no_backup(tmp_path: Path) -> None:
    touch(tmp_path, FILE, properties())
    modify_properties(Storage(str(tmp_path)), _without_region, _render)
    assert _partition_fields(tmp_path) == ()
    assert not (tmp_path / BACKUP).exists()


@pytest.mark.parametrize("crash_at", [1, 2, 3])
def test_a_crash_at_each_step_of_modify_is_recovered(tmp_path: Path, crash_at: int) -> None:
    """Steps: write the backup, replace the file, delete the backup."""
    touch(tmp_path, FILE, properties())
    with pytest.raises(Crash):
        modify_properties(CrashingStorage(str(tmp_path), crash_at), _without_region, _render)
    # readable at once, with the old properties or the new ones, never a mix
    assert _partition_fields(tmp_path) == (("region",) if crash_at <= 2 else ())
    assert load_config(Storage(str(tmp_path))).properties_problem is None  # the file itself is whole
    recover_properties(Storage(str(tmp_path)))
    assert not (tmp_path / BACKUP).exists()
    modify_properties(Storage(str(tmp_path)), _without_region, _render)  # the next update works
    assert _partition_fields(tmp_path) == ()


def test_recover_copies_a_valid_backup_over_a_missing_file(tmp_path: Path) -> None:
    """Hudi's own modify deletes the file before writing the new one: killed in between."""
    touch(tmp_path, BACKUP, properties())
    storage = Storage(str(tmp_path))
    assert load_config(storage).properties_problem is not None  # read from the backup
    done = recover_properties(storage)
    assert done is not None and "recovered" in done
    assert (tmp_path / FILE).read_bytes() == properties() and not (tmp_path / BACKUP).exists()
    assert load_config(storage).properties_problem is None


def test_recover_copies_a_valid_backup_over_a_cut_short_file(tmp_path: Path) -> None:
    good = properties()
    touch(tmp_path, BACKUP, good)
    touch(tmp_path, FILE, good[: good.index(b"hoodie.table.partition")])
    recover_properties(Storage(str(tmp_path)))
    assert (tmp_path / FILE).read_bytes() == good and not (tmp_path / BACKUP).exists()


def test_recover_deletes_a_backup_left_beside_a_valid_file(tmp_path: Path) -> None:
    touch(tmp_path, FILE, properties(partitioned=False))
    touch(tmp_path, BACKUP, properties())
    recover_properties(Storage(str(tmp_path)))
    assert not (tmp_path / BACKUP).exists()
    assert _partition_fields(tmp_path) == ()  # the file wins: its update was written


def test_recover_changes_nothing_when_neither_file_is_valid(tmp_path: Path) -> None:
    good = properties()
    cut = good[: good.index(b"hoodie.table.partition")]
    touch(tmp_path, FILE, cut)
    touch(tmp_path, BACKUP, cut)
    with pytest.raises(CorruptFileError, match="checksum is missing"):
        recover_properties(Storage(str(tmp_path)))
    assert (tmp_path / FILE).read_bytes() == cut and (tmp_path / BACKUP).read_bytes() == cut


def test_modify_recovers_first(tmp_path: Path) -> None:
    touch(tmp_path, BACKUP, properties())
    modify_properties(Storage(str(tmp_path)), _without_region, _render)
    raw = parse_java_properties((tmp_path / FILE).read_text("latin-1"))
    assert "hoodie.table.partition.fields" not in raw and not (tmp_path / BACKUP).exists()
