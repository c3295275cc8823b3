"""Which metadata-table instants a reader uses (``HoodieTableMetadataUtil.getValidInstantTimestamps``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.hudi.metadata.commit import commit_to_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates.build import files_record
from maintainer.hudi.metadata.writer import MetadataUpdate
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
LOG_COMPACTION = "20300101000000000"
EXTRA = "0b0c0d0e-0000-0000-0000-000000000000-0_0-1-1_20300101000000000.parquet"


def _open(path: Path) -> MetadataTable:
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    return mdt


def _as_log_compaction(timeline: Path, instant_time: str) -> None:
    """Turn the metadata deltacommit ``instant_time`` into a completed log compaction: its pending
    states become ``logcompaction`` ones, its completed file stays a ``deltacommit``."""
    for state in ("requested", "inflight"):
        (timeline / f"{instant_time}.deltacommit.{state}").rename(
            timeline / f"{instant_time}.logcompaction.{state}"
        )


def test_a_completed_metadata_log_compaction_is_a_valid_instant(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """HoodieTableMetadataUtil.getValidInstantTimestamps (isValidInstant): a completed instant
    of the metadata timeline whose action is ``deltacommit`` is valid; a log compaction
    completes as a ``deltacommit``, so the blocks it wrote are read."""
    path = fixture_copy(MOR_V9).path
    table = open_table(str(path), verify=False)
    partition = sorted(metadata_file_listing(_open(path)))[0]

    def build(mdt: MetadataTable) -> MetadataUpdate:
        return MetadataUpdate(LOG_COMPACTION, {FILES: [files_record(partition, {EXTRA: 1234}, [])]})

    assert commit_to_metadata_table(table.storage, LOG_COMPACTION, build) is not None
    _as_log_compaction(path / ".hoodie" / "metadata" / ".hoodie" / "timeline", LOG_COMPACTION)
    mdt = _open(path)
    (instant,) = [i for i in mdt.state.snapshot.timeline.completed() if i.timestamp == LOG_COMPACTION]
    assert instant.action.value == "logcompaction"
    assert LOG_COMPACTION in mdt.valid_instants
    assert metadata_file_listing(mdt)[partition][EXTRA] == 1234
