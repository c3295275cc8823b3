"""Which blocks count: corrupt and uncommitted blocks skipped, rollback blocks applied."""

from __future__ import annotations

from maintainer.hudi.logformat import (
    DeleteRecord,
    avro_data_block,
    delete_block,
    effective_blocks,
    read_log_blocks,
    rollback_command_block,
)
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip


def _instants(data: bytes, committed: set[str] | None = None) -> list[str | None]:
    blocks = read_log_blocks(data, "f")
    check = None if committed is None else committed.__contains__
    return [b.instant_time for b in effective_blocks(blocks, check)]


def test_rollback_removes_earlier_blocks_of_its_target() -> None:
    data = (
        avro_data_block([trip("a", 1)], TRIP_SCHEMA, "1")
        + avro_data_block([trip("b", 1)], TRIP_SCHEMA, "2")
        + delete_block([DeleteRecord("a", "p")], "2")
        + rollback_command_block("3", "2")
        + avro_data_block([trip("c", 1)], TRIP_SCHEMA, "4")
    )
    assert _instants(data) == ["1", "4"]


def test_uncommitted_and_corrupt_blocks_are_skipped() -> None:
    good = avro_data_block([trip("a", 1)], TRIP_SCHEMA, "1")
    pending = avro_data_block([trip("b", 1)], TRIP_SCHEMA, "2")
    broken = avro_data_block([trip("c", 1)], TRIP_SCHEMA, "5")[:-4]
    assert _instants(good + pending + broken, {"1", "5"}) == ["1"]


def test_a_rollback_block_applies_whatever_its_own_instant() -> None:
    """AbstractHoodieLogRecordReader.scanInternalV1: only data and delete blocks are checked
    against the completed timeline (``containsOrBeforeTimelineStarts``); a COMMAND (rollback)
    block is always applied. Its instant is a rollback action, never a completed commit, so
    checking it would bring the rolled-back block back once the failed write fell before the
    start of the timeline (archived past), where it counts as committed."""
    data = (
        avro_data_block([trip("a", 1)], TRIP_SCHEMA, "1")
        + avro_data_block([trip("b", 1)], TRIP_SCHEMA, "2")
        + rollback_command_block("3", "2")
        + avro_data_block([trip("c", 1)], TRIP_SCHEMA, "4")
    )
    assert _instants(data, {"1", "2", "4"}) == ["1", "4"]
