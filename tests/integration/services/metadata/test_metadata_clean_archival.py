"""The metadata table's own clean and archival on copies of Hudi-written tables: the v9 and v8
fixtures' metadata tables (each with one Hudi metadata compaction), as they are and grown by
further commits until Hudi's default settings clean and archive them. After each, the metadata
table reads the same records in every partition, is in step with the data table, hudi lists the
data table through it with the same file slices as without it, and the instant files are those
Hudi writes (decoded)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.metadata.archival import (
    MetadataArchivalSettings,
    data_table_boundary,
    plan_metadata_archival,
    run_metadata_archival,
)
from maintainer.services.metadata.clean import (
    MetadataCleanSettings,
    plan_metadata_clean,
    run_metadata_clean,
)
from tests.support import oracle
from tests.support.fixtures import FixtureTable, metadata_fixture_names
from tests.support.metadata_growth import add_empty_deltacommits
from tests.support.metadata_tables import MOR_V9, TRIPS_V8, assert_metadata_in_step, without_metadata_table

pytestmark = pytest.mark.fixtures
NOW = datetime(2026, 11, 28, tzinfo=UTC)
BOOTSTRAP = [f"0000000000000000{i}" for i in range(5)]
GROWN = [pytest.param(MOR_V9, 13, id="v9"), pytest.param(TRIPS_V8, 20, id="v8")]
"""Commits to add until the default retention (20 commits; 31 kept by archival) has work."""


def _opened(path: Path) -> tuple[TableState, MetadataTable]:
    data = open_table(str(path), verify=False)
    mdt = open_metadata_table(data)
    assert mdt is not None
    return data, mdt


def _records(path: Path) -> dict[str, dict[str, MetadataRecord]]:
    _, mdt = _opened(path)
    return {p.name: mdt.read_partition(p.name) for p in mdt.partitions}


def _assert_intact(
    path: Path, records: dict[str, dict[str, MetadataRecord]], slices: list[Any], scratch: Path
) -> None:
    assert _records(path) == records
    assert_metadata_in_step(path)
    assert oracle.file_slices(path) == slices
    assert slices == oracle.file_slices(without_metadata_table(path, scratch))


def _instant_files(mdt: Path, timestamp: str) -> list[Path]:
    return sorted((mdt / ".hoodie" / "timeline").glob(f"{timestamp}*"))


def test_the_clean_waits_for_three_instants_after_the_metadata_compaction(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """HoodieBackedTableMetadataWriter.cleanIfNecessary: the v8 fixture's metadata compaction is
    its newest instant, so no clean; two more commits are not enough, the third is."""
    path = fixture_copy(TRIPS_V8).path
    settings = MetadataCleanSettings(clean_commits_retained=3)
    _, mdt = _opened(path)
    plan = plan_metadata_clean(mdt.state, settings, NOW)
    assert not plan.has_changes and plan.reason.startswith("not yet: 0 completed instant(s)")
    add_empty_deltacommits(path, 2)
    _, mdt = _opened(path)
    assert plan_metadata_clean(mdt.state, settings, NOW).reason.startswith("not yet: 2 completed")
    add_empty_deltacommits(path, 1)
    _, mdt = _opened(path)
    assert plan_metadata_clean(mdt.state, settings, NOW).files


def test_a_clean_of_hudis_metadata_table_deletes_the_slices_before_its_compaction(
    fixture_copy: Callable[[str], FixtureTable], tmp_path: Path
) -> None:
    path = fixture_copy(MOR_V9).path
    _, mdt = _opened(path)
    default = plan_metadata_clean(mdt.state, MetadataCleanSettings(), NOW)
    assert not default.has_changes
    assert default.reason == "nothing to delete (20 completed commits, not more than the 20 retained)"

    plan = plan_metadata_clean(mdt.state, MetadataCleanSettings(clean_commits_retained=3), NOW)
    compaction = "20260307162612567"
    slice_of = {
        f.path: s.base_instant
        for part in mdt.state.view.partitions
        for g in mdt.file_groups(part)
        for s in g.slices
        for f in s.files
    }
    assert plan.files and all(slice_of[f.path] < compaction for f in plan.files)
    assert {f.partition for f in plan.files} == {"files", "column_stats", "partition_stats", "record_index"}
    records, slices = _records(path), oracle.file_slices(path)
    latest = mdt.state.snapshot.timeline.completed_commits()[-1]

    outcome = run_metadata_clean(mdt.storage, mdt.state, plan, clock=lambda: NOW)

    (run,) = outcome.runs
    assert outcome.files_deleted == len(plan.files) and not outcome.dropped and not outcome.failures
    root = path / ".hoodie" / "metadata"
    assert not any((root / f.path).exists() for f in plan.files)
    assert all(g.slices[-1].base_instant == compaction for g in _opened(path)[1].file_groups("files"))
    _assert_intact(path, records, slices, tmp_path)

    time = run.instant.timestamp
    inflight, requested, completed = _instant_files(root, time)
    assert (inflight.name, requested.name) == (f"{time}.clean.inflight", f"{time}.clean.requested")
    assert completed.name.startswith(f"{time}_") and completed.name.endswith(".clean")
    cleaner_plan = payloads.decode_cleaner_plan(requested.read_bytes(), str(requested))
    assert cleaner_plan is not None and plan.earliest_commit_to_retain is not None
    assert cleaner_plan.policy == "KEEP_LATEST_COMMITS"
    assert cleaner_plan.earliest_instant_to_retain is not None
    assert cleaner_plan.earliest_instant_to_retain.timestamp == plan.earliest_commit_to_retain.timestamp
    assert (
        cleaner_plan.earliest_instant_to_retain.action,
        cleaner_plan.earliest_instant_to_retain.state,
    ) == (
        "deltacommit",
        "COMPLETED",
    )
    assert cleaner_plan.last_completed_commit_timestamp == latest.timestamp
    assert cleaner_plan.files_to_be_deleted_per_partition == {}
    assert cleaner_plan.partitions_to_be_deleted == () and cleaner_plan.extra_metadata == {}
    listed = {
        info.file_path
        for infos in (cleaner_plan.file_paths_to_be_deleted_per_partition or {}).values()
        for info in infos
    }
    assert listed == {mdt.storage.uri(f.path) for f in plan.files}
    assert inflight.read_bytes() == b""
    metadata = payloads.decode_clean_metadata(completed.read_bytes(), str(completed))
    assert metadata is not None
    assert metadata.start_clean_time == run.instant.timestamp
    assert metadata.earliest_commit_to_retain == plan.earliest_commit_to_retain.timestamp
    assert metadata.total_files_deleted == len(plan.files)
    assert {n for p in metadata.partition_metadata.values() for n in p.success_delete_files} == {
        f.name for f in plan.files
    }

    _, again = _opened(path)
    after = plan_metadata_clean(again.state, MetadataCleanSettings(clean_commits_retained=3), NOW)
    assert not after.has_changes, after.reason


@pytest.mark.parametrize(("name", "commits"), GROWN)
def test_a_grown_metadata_table_is_cleaned_then_archived_with_hudis_defaults(
    fixture_copy: Callable[[str], FixtureTable], tmp_path: Path, name: str, commits: int
) -> None:
    path = fixture_copy(name).path
    add_empty_deltacommits(path, commits)
    records, slices = _records(path), oracle.file_slices(path)
    rows = oracle.snapshot_rows(path)

    data, mdt = _opened(path)
    clean = plan_metadata_clean(mdt.state, MetadataCleanSettings(), NOW)
    assert clean.files, clean.reason
    assert "the oldest of the 20 most recent completed commits" in clean.reason
    run_metadata_clean(mdt.storage, mdt.state, clean, clock=lambda: NOW)
    _assert_intact(path, records, slices, tmp_path)

    data, mdt = _opened(path)
    archival = plan_metadata_archival(mdt.state, data.snapshot.timeline, MetadataArchivalSettings())
    assert [i.timestamp for i in archival.instants] == BOOTSTRAP, archival.reason
    assert "archival stops before the data table's earliest commit" in archival.reason
    outcome = run_metadata_archival(mdt.storage, mdt.state, data.snapshot.timeline, archival)
    assert outcome.records_written == len(BOOTSTRAP)
    _assert_intact(path, records, slices, tmp_path)
    assert oracle.snapshot_rows(path) == rows

    root = path / ".hoodie" / "metadata"
    assert not any(_instant_files(root, t) for t in BOOTSTRAP)
    history = root / ".hoodie" / "timeline" / "history"
    version = int((history / "_version_").read_text())
    manifest = json.loads((history / f"manifest_{version}").read_text())
    assert [f["fileName"] for f in manifest["files"]] == [f"{BOOTSTRAP[0]}_{BOOTSTRAP[-1]}_0.parquet"]
    archived = pq.read_table(history / manifest["files"][0]["fileName"]).to_pylist()
    assert [(r["instantTime"], r["action"]) for r in archived] == [(t, "deltacommit") for t in BOOTSTRAP]
    for row in archived:
        assert row["completionTime"] > row["instantTime"] and row["version"] == 1
        payloads.decode_commit_metadata(row["metadata"], f"lsm:{row['instantTime']}")

    _, mdt = _opened(path)
    again = plan_metadata_archival(mdt.state, data.snapshot.timeline, MetadataArchivalSettings())
    assert not again.has_changes, again.reason


def test_an_interrupted_metadata_clean_is_finished_by_the_next_run(
    fixture_copy: Callable[[str], FixtureTable], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_copy(MOR_V9).path
    records, slices = _records(path), oracle.file_slices(path)
    settings = MetadataCleanSettings(clean_commits_retained=3)
    _, mdt = _opened(path)
    plan = plan_metadata_clean(mdt.state, settings, NOW)
    monkeypatch.setenv(FAULT_ENV, "clean:after_inflight")
    with pytest.raises(InjectedFault):
        run_metadata_clean(mdt.storage, mdt.state, plan, clock=lambda: NOW)
    monkeypatch.delenv(FAULT_ENV)

    _, mdt = _opened(path)
    (pending,) = mdt.state.snapshot.timeline.pending_cleans()
    assert pending.state is State.INFLIGHT
    stale = run_metadata_clean(mdt.storage, mdt.state, plan, clock=lambda: NOW)
    assert not stale.runs and "another writer is cleaning it" in stale.refused
    assert all((path / ".hoodie" / "metadata" / f.path).exists() for f in plan.files)
    resumed = plan_metadata_clean(mdt.state, settings, NOW)
    assert resumed.pending_cleans == (pending.timestamp,)
    outcome = run_metadata_clean(mdt.storage, mdt.state, resumed, clock=lambda: NOW)
    assert outcome.runs[0].instant.timestamp == pending.timestamp
    assert outcome.files_deleted == len(plan.files)
    _, mdt = _opened(path)
    assert not mdt.state.snapshot.timeline.pending_cleans()
    assert mdt.state.snapshot.timeline.last_completed(Action.CLEAN) is not None
    _assert_intact(path, records, slices, tmp_path)


def test_an_interrupted_metadata_archival_is_finished_without_duplicates(
    fixture_copy: Callable[[str], FixtureTable], tmp_path: Path
) -> None:
    path = fixture_copy(MOR_V9).path
    add_empty_deltacommits(path, 12)
    records, slices = _records(path), oracle.file_slices(path)
    data, mdt = _opened(path)
    plan = plan_metadata_archival(mdt.state, data.snapshot.timeline, MetadataArchivalSettings())
    assert [i.timestamp for i in plan.instants] == BOOTSTRAP, plan.reason

    def crash(point: str) -> None:
        if point == "after_first_completed_deleted":
            raise InjectedFault("crash")

    with pytest.raises(InjectedFault):
        run_metadata_archival(mdt.storage, mdt.state, data.snapshot.timeline, plan, fault=crash)
    data, mdt = _opened(path)
    resumed = plan_metadata_archival(mdt.state, data.snapshot.timeline, MetadataArchivalSettings())
    assert [i.timestamp for i in resumed.instants] == BOOTSTRAP[1:], resumed.reason
    outcome = run_metadata_archival(mdt.storage, mdt.state, data.snapshot.timeline, resumed)
    assert outcome.records_written == 0
    history = path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history"
    rows = [r for f in sorted(history.glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    assert sorted(r["instantTime"] for r in rows) == BOOTSTRAP
    _assert_intact(path, records, slices, tmp_path)


@pytest.mark.parametrize("name", [n for n in metadata_fixture_names() if "lance" not in n])
def test_clean_then_archival_leave_every_fixture_metadata_table_intact(
    fixture_copy: Callable[[str], FixtureTable], tmp_path: Path, name: str
) -> None:
    """Short retention on every Hudi-written metadata table (lance tables aside: hudi does not
    read them): whatever is cleaned and archived, the records, the sync and hudi's listing stay."""
    path = fixture_copy(name).path
    records, slices = _records(path), oracle.file_slices(path)
    _, mdt = _opened(path)
    clean = plan_metadata_clean(mdt.state, MetadataCleanSettings(clean_commits_retained=1), NOW)
    outcome = run_metadata_clean(mdt.storage, mdt.state, clean, clock=lambda: NOW)
    assert outcome.files_deleted == len(clean.files) and not outcome.failures
    data, mdt = _opened(path)
    settings = MetadataArchivalSettings(keep_min_commits=1, keep_max_commits=2)
    archival = plan_metadata_archival(mdt.state, data.snapshot.timeline, settings)
    run_metadata_archival(mdt.storage, mdt.state, data.snapshot.timeline, archival)
    boundary = data_table_boundary(data.snapshot.timeline)
    assert boundary is None or all(i.timestamp < boundary.timestamp for i in archival.instants)
    _assert_intact(path, records, slices, tmp_path)
