"""The record index records of a clustering (``createRecordIndexUpdate``): the location of a
moved key in the shape Hudi 1.1.1 writes (the v9 fixture's record), and instant times as epoch
millis in the timeline's time zone."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.record_index import indexed_location
from maintainer.hudi.metadata.updates.build import instant_epoch_millis, record_index_record

FILE_ID = "69445c2d-9b4b-4a2d-ad58-2d5ba1e2b0a2-0"


def test_a_moved_key_points_at_its_new_file_group() -> None:
    key, record = record_index_record("TXN-018", "region=eu", FILE_ID, 1772922380509)
    assert key == "TXN-018" and record["type"] == 5
    info = record["recordIndexMetadata"]
    assert set(info) == {"partitionName", "fileIdHighBits", "fileIdLowBits", "fileIndex", "fileId",
                         "instantTime", "fileIdEncoding", "position"}  # fmt: skip
    assert (info["fileId"], info["fileIdEncoding"], info["fileIndex"], info["position"]) == ("", 0, 0, None)
    assert -(2**63) <= info["fileIdHighBits"] < 2**63 and -(2**63) <= info["fileIdLowBits"] < 2**63
    assert indexed_location(record) == ("region=eu", FILE_ID)
    assert indexed_location(record_index_record("k", "", "00000000-0000-0000-0000-000000000001-3", 0)[1]) == (
        "",
        "00000000-0000-0000-0000-000000000001-3",
    )


def test_a_file_id_that_is_not_a_uuid_is_refused() -> None:
    with pytest.raises(UnsupportedTableError, match="uuid"):
        record_index_record("k", "p", "not-a-uuid", 0)


def test_instant_times_are_epoch_millis_in_the_timeline_time_zone() -> None:
    expected = int(datetime(2026, 3, 7, 16, 26, 19, 269000, tzinfo=timezone.utc).timestamp() * 1000)
    assert instant_epoch_millis("20260307162619269", "UTC") == expected
    local = int(datetime(2026, 3, 7, 16, 26, 19, 269000).astimezone().timestamp() * 1000)
    assert instant_epoch_millis("20260307162619269", "LOCAL") == local
