"""Writing a metadata deltacommit for a data instant, and the retry after a crash at any point:
whatever an earlier attempt left for that instant is removed and the instant written afresh."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.commit import commit_to_metadata_table, open_for_sync
from maintainer.hudi.metadata.files import partition_key
from maintainer.hudi.metadata.partitions import FILES, RecordType
from maintainer.hudi.metadata.sync import sync_status
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.writer import MetadataUpdate
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
T = "20260307162700000"


def clock() -> datetime:
    return datetime(2026, 3, 7, 22, 27, 1, tzinfo=timezone.utc)


def tombstone(partition: str, name: str) -> Callable[[MetadataTable], MetadataUpdate]:
    record = {
        "key": "",
        "type": int(RecordType.FILE_LIST),
        "filesystemMetadata": {name: {"size": 0, "isDeleted": True}},
    }
    return lambda mdt: MetadataUpdate(T, {FILES: [(partition_key(partition), record)]})


def setup(fixture_copy: Callable[[str], FixtureTable]) -> tuple[Path, Storage, str, str]:
    path = fixture_copy(MOR_V9).path
    (path / ".hoodie" / "timeline" / f"{T}.deltacommit.requested").write_bytes(b"")  # T pending on data
    victim = sorted(p for p in path.rglob("*.parquet") if ".hoodie" not in p.parts)[0]
    return path, Storage(str(path)), victim.parent.name, victim.name


def logs_of(path: Path) -> list[str]:
    return sorted(p.name for p in (path / ".hoodie" / "metadata").glob(f"*/.*_{T}.log.*"))


def test_the_deltacommit_is_written_and_read_only_once_its_data_instant_completes(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    path, storage, partition, name = setup(fixture_copy)
    instant = commit_to_metadata_table(storage, T, tombstone(partition, name), clock)
    assert instant is not None and instant.state is State.COMPLETED and instant.timestamp == T
    assert logs_of(path) == [f".files-0000-0_{T}.log.1_0-0-0"]
    mdt = open_for_sync(storage)
    assert mdt is not None
    assert name in mdt.read_partition(FILES)[partition]["filesystemMetadata"]  # T not valid yet
    status = sync_status(open_table(str(path), verify=False).snapshot.timeline, mdt.state.snapshot.timeline)
    assert [i.timestamp for i in status.ahead] == [T]

    (path / ".hoodie" / "timeline" / f"{T}.deltacommit.requested").unlink()  # now T completes on data
    (path / ".hoodie" / "timeline" / f"{T}_20260307162702000.deltacommit").write_bytes(b"")
    mdt = open_for_sync(storage)
    assert mdt is not None
    assert name not in mdt.read_partition(FILES)[partition]["filesystemMetadata"]


@pytest.mark.parametrize("left", ["requested", "inflight", "log file", "completed"])
def test_a_retry_after_a_crash_rewrites_the_instant(
    left: str, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path, storage, partition, name = setup(fixture_copy)
    assert commit_to_metadata_table(storage, T, tombstone(partition, name), clock) is not None
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    keep = {"requested": 1, "inflight": 2, "log file": 2, "completed": 3}[left]
    states = [timeline / f"{T}.deltacommit.requested", timeline / f"{T}.deltacommit.inflight"]
    states += list(timeline.glob(f"{T}_*.deltacommit"))
    for state in states[keep:]:
        state.unlink()
    if left in ("requested", "inflight"):
        for log in (path / ".hoodie" / "metadata").glob(f"*/.*_{T}.log.*"):
            log.unlink()

    again = commit_to_metadata_table(storage, T, tombstone(partition, name), clock)
    assert again is not None and again.state is State.COMPLETED
    assert logs_of(path) == [f".files-0000-0_{T}.log.1_0-0-0"]
    mdt = open_for_sync(storage)
    assert mdt is not None
    entry = mdt.state.snapshot.timeline.entry(T, Action.DELTA_COMMIT)
    assert entry is not None and set(entry.state_files) == {State.REQUESTED, State.INFLIGHT, State.COMPLETED}


def test_a_table_without_a_metadata_table_gets_nothing(fixture_copy: Callable[[str], FixtureTable]) -> None:
    path = fixture_copy("sample_table_mor_avro_v9_txns_simple_nometa").path
    assert commit_to_metadata_table(Storage(str(path)), T, tombstone("x", "y"), clock) is None
    assert not (path / ".hoodie" / "metadata").exists()


def test_a_clean_that_forgets_column_stats_is_caught_by_the_check(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    path, storage, partition, name = setup(fixture_copy)
    assert commit_to_metadata_table(storage, T, tombstone(partition, name), clock) is not None
    (path / ".hoodie" / "timeline" / f"{T}.deltacommit.requested").unlink()
    (path / ".hoodie" / "timeline" / f"{T}_20260307162702000.deltacommit").write_bytes(b"")
    (path / partition / name).unlink()
    table = open_table(str(path), verify=False)
    mdt = open_for_sync(storage)
    assert mdt is not None
    check = check_metadata_table(table, mdt)
    assert check.differences == ()  # files agrees with storage
    assert check.stale_column_stats == (name,)
    assert check.problems() == [f"{name}: column_stats still describes it, but it is gone"]


def test_the_deltacommit_keeps_its_data_instants_time_when_a_newer_one_is_already_there(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """A Hudi writer may have written the metadata table since the data instant started."""
    path, storage, partition, name = setup(fixture_copy)
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    newer = "20260307162800000"
    for state in (f"{newer}.deltacommit.requested", f"{newer}.deltacommit.inflight"):
        (timeline / state).write_bytes(b"")
    (timeline / f"{newer}_20260307162800500.deltacommit").write_bytes(b"")
    instant = commit_to_metadata_table(storage, T, tombstone(partition, name), clock)
    assert instant is not None and instant.timestamp == T and instant.state is State.COMPLETED
