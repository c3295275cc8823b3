"""The metadata table compaction's rules, each with Hudi's (``HoodieBackedTableMetadataWriter``
``compactIfNecessary``, the ``NUM_COMMITS`` trigger, ``HoodieMetadataPayload``'s merge)."""

from __future__ import annotations

from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.compaction_merge import is_deleted, java_merge_order
from maintainer.hudi.metadata.compaction_plan import (
    compaction_instant_time,
    deltacommits_since_compaction,
    evaluate_trigger,
)
from maintainer.hudi.metadata.updates.java_map import java_spread


def _timeline(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 2, ".hoodie/timeline")


def _deltacommit(time: str, done: str) -> list[str]:
    return [f"{time}.deltacommit.requested", f"{time}.deltacommit.inflight", f"{time}_{done}.deltacommit"]


MDT = _timeline(
    *_deltacommit("20260101000000000", "20260101000000100"),
    *_deltacommit("20260101000001000", "20260101000001100"),
    "20260101000001500.compaction.requested",
    "20260101000001500.compaction.inflight",
    "20260101000001500_20260101000001600.commit",
    *_deltacommit("20260101000001400", "20260101000001700"),  # requested before, done after
    *_deltacommit("20260101000002000", "20260101000002100"),
)


def test_the_trigger_counts_deltacommits_requested_after_the_latest_compaction() -> None:
    """``getDeltaCommitsSinceLatestCompaction``: by requested time, so a deltacommit requested
    before the compaction and completed after it does not count."""
    assert deltacommits_since_compaction(MDT) == 1
    assert not evaluate_trigger(MDT, 2).fires
    assert evaluate_trigger(MDT, 1).fires
    assert (
        "1 of 1 metadata deltacommits since the last compaction 20260101000001500"
        in evaluate_trigger(MDT, 1).reason
    )


def test_never_compacted_counts_every_deltacommit() -> None:
    timeline = _timeline(*_deltacommit("20260101000000000", "20260101000000100"))
    assert deltacommits_since_compaction(timeline) == 1
    assert "never compacted" in evaluate_trigger(timeline, 10).reason


def test_the_instant_is_one_millisecond_before_a_data_instant_pending_but_done_on_the_metadata_table() -> (
    None
):
    """A data instant whose metadata deltacommit completed while it is still pending stays out
    of the base files (it may yet be rolled back)."""
    data = _timeline("20260101000002000.deltacommit.requested", "20260101000002000.deltacommit.inflight")
    assert compaction_instant_time(data, MDT, "20260101000009000") == "20260101000001999"


def test_otherwise_the_instant_is_now_moved_past_the_metadata_timeline() -> None:
    data = _timeline(*_deltacommit("20260101000002000", "20260101000002200"))
    assert compaction_instant_time(data, MDT, "20260101000009000") == "20260101000009000"
    # past every time on the metadata timeline, completion times included
    assert compaction_instant_time(data, MDT, "20260101000000500") == "20260101000002101"


def test_deleted_stats_bloom_and_secondary_entries_leave_the_base_file_files_records_stay() -> None:
    assert is_deleted({"type": 3, "ColumnStatsMetadata": {"isDeleted": True}})
    assert not is_deleted({"type": 3, "ColumnStatsMetadata": {"isDeleted": False}})
    assert is_deleted({"type": 4, "BloomFilterMetadata": ("HoodieMetadataBloomFilter", {"isDeleted": True})})
    assert is_deleted({"type": 7, "SecondaryIndexMetadata": {"isDeleted": True}})
    assert not is_deleted({"type": 2, "filesystemMetadata": {"a": {"size": 0, "isDeleted": True}}})


def test_a_combined_map_iterates_by_bucket_then_by_insertion() -> None:
    """``new HashMap<>()``, ``putAll`` sizes it for its entries (16 when empty), doubling past
    3/4 full; within a bucket, insertion order."""
    names = [f"f{index}" for index in range(12)]
    order = java_merge_order([], names, names)
    assert order == sorted(names, key=lambda n: (java_spread(n) & 15, names.index(n)))
    grown = java_merge_order(names, ["g"], [*names, "g"])  # putAll(12): 32 buckets
    assert grown == sorted([*names, "g"], key=lambda n: (java_spread(n) & 31, [*names, "g"].index(n)))
    assert java_merge_order(["a", "b"], ["c"], ["a", "c"]) == [
        n for n in java_merge_order(["a", "b"], ["c"], ["a", "b", "c"]) if n != "b"
    ]
