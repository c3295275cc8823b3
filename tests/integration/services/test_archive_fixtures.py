"""Archival of real Hudi-written tables (copies of the fixtures without a metadata table): the
archived records are built from Hudi's own instant files (JSON v6 commits converted to Avro,
compaction plans, replace metadata) and decode with Hudi's schemas; hudi reads the same rows
before and after, latest and as of every instant still active."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.archive.executor import run_archive
from maintainer.hudi import payloads
from maintainer.hudi.table.state import open_table
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.compaction.settings import CompactionSpec
from tests.integration.services.test_archive_run import v6_records, v8_rows
from tests.support import oracle
from tests.support.fixtures import FixtureTable

V6 = ArchiveSpec(keep_min_commits=1, keep_max_commits=1)
V9 = ArchiveSpec(keep_min_commits=2, keep_max_commits=4)
CASES = [
    pytest.param("sample_table_mor_parquet_v6_nonpartitioned_rollback", V6, id="mor-v6-rollback"),
    pytest.param("sample_table_cow_v6_complexkeygen_hivestyle", V6, id="cow-v6"),
    pytest.param(
        "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle_overwritetable", V6, id="mor-v6-overwrite"
    ),
    pytest.param("sample_table_mor_avro_v9_txns_nonpart_nometa", V9, id="mor-v9-compaction"),
    pytest.param("sample_table_cow_v9_txns_complex_nometa", V9, id="cow-v9"),
]

# Archival mechanics, not the compaction window: a trigger that does not count delta commits
# (Hudi applies the window guard to every MOR table whose trigger counts them).
NOT_COUNTING = CompactionSpec.model_validate({"trigger": {"strategy": "time_elapsed"}})


@pytest.mark.fixtures
@pytest.mark.parametrize(("name", "settings"), CASES)
def test_archival_of_real_hudi_tables(
    fixture_copy: Callable[[str], FixtureTable], name: str, settings: ArchiveSpec
) -> None:
    path = fixture_copy(name).path
    table = open_table(str(path))
    before = {i.timestamp: oracle.snapshot_rows(path, as_of=i.timestamp) for i in table.snapshot.timeline}
    latest = oracle.snapshot_rows(path)
    result = plan_archive(load_archive_inputs(table, NOT_COUNTING), settings)
    assert result.commits, result.reasons
    outcome = run_archive(table.storage, table.snapshot.config, result)
    assert outcome.records_written

    after = open_table(str(path))
    remaining = {i.timestamp for i in after.snapshot.timeline}
    assert not remaining & {i.timestamp for i in result.instants}
    for instant in after.snapshot.timeline.completed_commits():
        assert oracle.snapshot_rows(path, as_of=instant.timestamp) == before[instant.timestamp]
    assert oracle.snapshot_rows(path) == latest
    archived = sorted({i.timestamp for i in result.instants})
    if table.snapshot.config.version == 6:
        assert_v6_archive(path, archived)
    else:
        assert_lsm_archive(path, archived)


def assert_v6_archive(path: Path, archived: list[str]) -> None:
    records = v6_records(path)
    assert sorted({r["commitTime"] for r in records}) == archived
    completed = [r for r in records if r["actionState"] == "COMPLETED"]
    assert completed and all(
        r["hoodieCommitMetadata"] or r["hoodieReplaceCommitMetadata"] or r["hoodieRollbackMetadata"]
        for r in completed
    )


def assert_lsm_archive(path: Path, archived: list[str]) -> None:
    rows = v8_rows(path)
    assert sorted(r["instantTime"] for r in rows) == archived
    for row in rows:
        where = f"lsm:{row['instantTime']}"
        assert row["metadata"] is not None
        payloads.decode_commit_metadata(row["metadata"], where)
        if row["action"] == "commit" and row["plan"] is not None:
            plan = payloads.decode_compaction_plan(row["plan"], where)
            assert plan is not None and plan.operations
