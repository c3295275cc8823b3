"""More golden evidence for the column value wrappers, files records and partition stats: every
completed ``commit`` of the fixtures (inserts, upserts, deletes of copy-on-write tables of many
column types and key generators) rebuilt with :func:`commit_update` equals, byte for byte, what
Hudi wrote to ``files``, ``column_stats`` and ``partition_stats`` (their record index updates
are not made here). And Hudi's partition stats of an ``INSERT_OVERWRITE`` still count the
file groups it replaced: the slices as they were before the instant, plus its new files."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from maintainer.hudi.instants.instant import Action
from maintainer.hudi.metadata.records import parsed_schema
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates import (
    TableView,
    UpdateRecords,
    commit_update,
    latest_merged_files,
    table_indexes,
)
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.payloads.commit import CommitMetadata
from maintainer.hudi.payloads.decode import decode_commit_metadata
from maintainer.hudi.table.state import TableState, open_table
from tests.support.fixtures import FixtureTable, metadata_fixture_names
from tests.unit.hudi.metadata.mdt_blocks import cells_at

pytestmark = pytest.mark.fixtures
TABLES = [name for name in metadata_fixture_names() if "lance" not in name and "_cow_" in name]
COMPARED = ("files", "column_stats", "partition_stats")


def _commits(state: TableState, action: Action) -> list[tuple[str, CommitMetadata]]:
    timeline = state.snapshot.timeline
    found = []
    for instant in timeline.completed():
        if instant.action is action:
            path = timeline.file_path(instant)
            found.append((instant.timestamp, decode_commit_metadata(state.storage.read_bytes(path), path)))
    return found


def _assert_same(path: Path, instant: str, ours: UpdateRecords, partitions: Sequence[str]) -> int:
    checked = 0
    for partition in partitions:
        stored = cells_at(path, instant, partition)
        mine = dict(ours.get(partition, []))
        assert sorted(mine) == sorted(stored), (instant, partition)
        for key, cell in stored.items():
            assert encode_value(mine[key], parsed_schema(cell.schema_json)) == cell.value, (instant, key)
            checked += 1
    return checked


def _update(
    state: TableState, instant: str, commit: CommitMetadata, latest: Mapping[str, list[str]]
) -> UpdateRecords:
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    mdt = open_metadata_table(state)
    assert mdt is not None
    return commit_update(
        instant, commit, state.storage, indexes, TableView(latest, mdt.read_partition("column_stats"))
    )


@pytest.mark.parametrize("name", TABLES)
def test_every_commit_of_a_copy_on_write_table(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    path = fixture_table(name).path
    state = open_table(str(path), verify=False)
    commits = _commits(state, Action.COMMIT)
    assert commits
    checked = 0
    for instant, commit in commits:
        latest = latest_merged_files(state.view_as_of(instant), list(commit.partition_to_write_stats or {}))
        checked += _assert_same(path, instant, _update(state, instant, commit, latest), COMPARED)
    assert checked > len(commits)


def test_insert_overwrite_partition_stats_keep_the_replaced_groups(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    path = fixture_table("sample_table_cow_v9_txns_simple_meta").path
    state = open_table(str(path), verify=False)
    ((instant, commit),) = _commits(state, Action.REPLACE_COMMIT)
    partitions = list(commit.partition_to_write_stats or {})
    before = latest_merged_files(state.view_as_of(str(int(instant) - 1)), partitions)
    new = {
        p: [(s.path or "").rsplit("/", 1)[-1] for s in stats]
        for p, stats in (commit.partition_to_write_stats or {}).items()
    }
    latest = {p: before[p] + new[p] for p in partitions}
    assert _assert_same(path, instant, _update(state, instant, commit, latest), COMPARED) == 2 + 16 + 16
