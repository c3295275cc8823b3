"""Savepoints on real Hudi-written tables (with compaction, clustering and replacecommits): the
files a savepoint records are exactly what time travel to its instant needs, so hudi reads the
same rows as of it after every other superseded file is deleted."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.executors.savepoint import create_savepoint
from maintainer.hudi.table.state import open_table
from tests.integration.services.test_savepoint_run import delete_superseded_files
from tests.support import oracle
from tests.support.fixtures import FixtureTable

NAMES = [
    "sample_table_cow_v9_txns_complex_nometa",
    "sample_table_mor_avro_v9_txns_nonpart_nometa",
    "sample_table_mor_avro_v9_txns_simple_nometa",
    "sample_table_cow_v6_complexkeygen_hivestyle",
]


@pytest.mark.fixtures
@pytest.mark.parametrize("name", NAMES)
def test_savepointed_files_keep_time_travel_on_real_tables(
    fixture_copy: Callable[[str], FixtureTable], name: str
) -> None:
    path = fixture_copy(name).path
    table = open_table(str(path))
    commits = table.snapshot.timeline.completed_commits()
    target = commits[len(commits) // 2].timestamp
    expected = oracle.snapshot_rows(path, as_of=target)
    latest = oracle.snapshot_rows(path)
    create_savepoint(table, target)
    kept = set(open_table(str(path)).view.inputs.savepointed_files)
    assert kept
    deleted = delete_superseded_files(path, kept)
    assert oracle.snapshot_rows(path, as_of=target) == expected
    assert oracle.snapshot_rows(path) == latest
    assert deleted and not kept & set(deleted)
