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
