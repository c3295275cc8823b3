"""Orphan files on real Hudi tables: none on any fixture as Hudi wrote it; a file of an instant
on no timeline, a file its completed instant's write stats do not list, and a marker folder of a
completed instant are found, each with why; files of pending instants, files older than the
active timeline, young files and (table version 6, a write pending) unlisted log files are left
alone and counted."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.orphans import OrphanScan, find_orphans
from maintainer.hudi.table.state import TableState, open_table
from tests.support.fixtures import FixtureTable, base_files, fixture_names

pytestmark = pytest.mark.fixtures

NOW = datetime.now(UTC)
COW_V8 = "sample_table_cow_v8_simplekeygen_nonhivestyle"
MOR_V6 = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"
DAY = 86400


def scan(path: Path, min_age: timedelta = timedelta(0)) -> tuple[TableState, OrphanScan]:
    table = open_table(str(path))
    return table, find_orphans(table, table.referenced or frozenset(), NOW, min_age)


def age(path: Path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("name", fixture_names())
def test_no_orphan_in_a_table_as_hudi_wrote_it(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = open_table(str(fixture_table(name).path))
    result = find_orphans(table, table.referenced or frozenset(), NOW, timedelta(0))
    assert result.orphans == ()
    assert result.pending == 0


def _a_base_file(table: FixtureTable) -> Path:
    return next(base_files(table))


def test_each_kind_is_found_with_why(fixture_copy: Callable[[str], FixtureTable]) -> None:
    table = fixture_copy(COW_V8)
    original = _a_base_file(table)
    file_id, _token, rest = original.name.split("_", 2)
    instant = rest.split(".")[0]
    timeline = open_table(str(table.path)).snapshot.timeline
    assert timeline.write_timeline_start() is not None
    # a completed instant's file its write stats do not list (another task attempt's token)
    retried = original.with_name(f"{file_id}_9-9-9_{rest}")
    shutil.copy(original, retried)
    # a file of an instant on no timeline, later than the active timeline's start
    ghost_instant = str(int(max(i.timestamp for i in timeline.instants)) + 1)
    ghost = original.with_name(f"{file_id}_0-1-0_{ghost_instant}.parquet")
    shutil.copy(original, ghost)
    # a marker folder of a completed instant
    marker = (
        table.path / ".hoodie" / ".temp" / instant / "p" / f"{file_id}_0-1-0_{instant}.parquet.marker.CREATE"
    )
    marker.parent.mkdir(parents=True)
    marker.write_text("")
    for path in (retried, ghost, marker):
        age(path, 10)
    _, result = scan(table.path, timedelta(days=7))
    found = {Path(o.path).name: (o.kind, o.reason) for o in result.orphans}
    assert set(found) == {retried.name, ghost.name, marker.name}
    assert found[retried.name][0] == "not_in_write_stats" and instant in found[retried.name][1]
    assert found[ghost.name][0] == "dangling" and f"its instant {ghost_instant}" in found[ghost.name][1]
    assert found[marker.name][0] == "markers" and "which is completed" in found[marker.name][1]
    assert result.bytes == sum(p.stat().st_size for p in (retried, ghost, marker))


def test_young_pending_and_archived_files_are_left_alone(fixture_copy: Callable[[str], FixtureTable]) -> None:
    table = fixture_copy(COW_V8)
    original = _a_base_file(table)
    file_id = original.name.split("_", 1)[0]
    state = open_table(str(table.path))
    young = original.with_name(
        f"{file_id}_0-1-0_{int(max(i.timestamp for i in state.snapshot.timeline.instants)) + 5}.parquet"
    )
    shutil.copy(original, young)  # fresh: younger than 7 days
    old_instant = str(int(state.snapshot.timeline.write_timeline_start() or "0") - 1000)
    archived = original.with_name(f"{file_id}_0-1-0_{old_instant}.parquet")
    shutil.copy(original, archived)
    age(archived, 30)
    writer = TimelineWriter(state.storage, state.snapshot.config)
    pending = writer.create_requested(Action.COMMIT)
    in_flight = original.with_name(f"{file_id}_0-1-0_{pending.timestamp}.parquet")
    shutil.copy(original, in_flight)
    age(in_flight, 30)
    _, result = scan(table.path, timedelta(days=7))
    assert result.orphans == ()
    assert (result.young, result.archived, result.pending) == (1, 1, 1)


def test_v6_log_files_are_left_alone_while_a_write_is_pending(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V6)
    state = open_table(str(table.path))
    log = next(f for s in state.view.latest_slices() for f in s.log_files)
    path = table.path / log.partition / log.name
    name = log.name.rsplit(".", 1)[0] + f".{log.log_version + 7}_0-1-0"
    extra = path.with_name(name.rsplit(".log.", 1)[0] + f".log.{log.log_version + 7}_0-1-0")
    shutil.copy(path, extra)
    age(extra, 30)
    _, result = scan(table.path)
    assert [Path(o.path).name for o in result.orphans] == [extra.name]
    TimelineWriter(state.storage, state.snapshot.config).create_requested(Action.DELTA_COMMIT)
    _, result = scan(table.path)
    assert result.orphans == () and result.pending == 1
