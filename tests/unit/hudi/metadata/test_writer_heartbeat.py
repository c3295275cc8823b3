"""The metadata deltacommit keeps a heartbeat in the metadata table's own heartbeat folder
(``.hoodie/metadata/.hoodie/.heartbeat/``) while it is pending."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from maintainer.errors import StorageError
from maintainer.hudi.instants.heartbeat import heartbeat_path
from maintainer.hudi.metadata.commit import commit_to_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates.build import files_record
from maintainer.hudi.metadata.writer import MetadataUpdate
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
INSTANT = "20300101000000000"
NEW_FILE = "0b0c0d0e-0000-0000-0000-000000000000-0_0-1-1_20300101000000000.parquet"


def test_a_metadata_deltacommit_cut_short_leaves_its_heartbeat_and_a_completed_one_none(
    fixture_copy: Callable[[str], FixtureTable], monkeypatch: pytest.MonkeyPatch
) -> None:
    """HoodieHeartbeatClient.start before the write, HeartbeatUtils.deleteHeartbeatFile after the
    commit: a failure while writing the log files leaves the heartbeat file (fresh, then
    expiring); the retry completes the deltacommit and deletes it."""
    path = fixture_copy(MOR_V9).path
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    partition = sorted(metadata_file_listing(mdt))[0]

    def build(_: MetadataTable) -> MetadataUpdate:
        return MetadataUpdate(INSTANT, {FILES: [files_record(partition, {NEW_FILE: 10}, [])]})

    write_if_absent = Storage.write_if_absent

    def failing(self: Storage, name: str, data: bytes) -> None:
        if ".log." in name:
            raise StorageError(f"cannot write {name}")
        write_if_absent(self, name, data)

    monkeypatch.setattr(Storage, "write_if_absent", failing)
    with pytest.raises(StorageError):
        commit_to_metadata_table(table.storage, INSTANT, build)
    heartbeat = path / ".hoodie" / "metadata" / heartbeat_path(INSTANT)
    assert heartbeat.read_bytes() == b""
    assert time.time() - heartbeat.stat().st_mtime < 60

    monkeypatch.setattr(Storage, "write_if_absent", write_if_absent)
    assert commit_to_metadata_table(table.storage, INSTANT, build) is not None
    assert not heartbeat.exists()
