from __future__ import annotations

import io
from typing import Any

import fastavro
import pytest

from maintainer.errors import CorruptFileError, MaintainerError
from maintainer.hudi.payloads import container, schemas
from maintainer.hudi.payloads.clean_encode import encode_long
from tests.unit.hudi.payloads import samples

WHERE = ".hoodie/20251220210200000.clean.requested"


def plan_record() -> dict[str, Any]:
    return samples.cleaner_plan().to_record()


def test_round_trip_gives_the_same_record() -> None:
    record = plan_record()
    data = container.write_container("HoodieCleanerPlan", record)
    assert container.read_container(data, WHERE) == record
    assert container.read_named_container(data, WHERE) == ("HoodieCleanerPlan", record)


def test_same_record_gives_the_same_bytes_and_another_record_another_sync_marker() -> None:
    first = container.write_container("HoodieCleanerPlan", plan_record())
    assert container.write_container("HoodieCleanerPlan", plan_record()) == first
    other = container.write_container(
        "HoodieCleanerPlan", {**plan_record(), "policy": "KEEP_LATEST_BY_HOURS"}
    )
    assert other[-16:] != first[-16:]


def test_layout_is_javas_null_codec_one_block_container() -> None:
    record = {**plan_record(), "extraMetadata": {"long": "x" * 300}}
    data = container.write_container("HoodieCleanerPlan", record)
    assert data.startswith(b"Obj\x01")
    reader = fastavro.reader(io.BytesIO(data))
    assert reader.metadata == {"avro.schema": schemas.schema_text("HoodieCleanerPlan")}
    assert reader.codec == "null"
    sync = data[-16:]
    assert data.count(sync) == 2
    assert list(reader) == [record]


def test_invalid_record_is_refused_naming_the_schema() -> None:
    with pytest.raises(MaintainerError, match="HoodieCleanerPlan"):
        container.write_container("HoodieCleanerPlan", {**plan_record(), "policy": 3})
    with pytest.raises(MaintainerError, match="HoodieCleanerPlan"):
        container.write_container("HoodieCleanerPlan", {**plan_record(), "unknownField": "x"})
    record = plan_record()
    del record["policy"]
    with pytest.raises(MaintainerError, match="HoodieCleanerPlan"):
        container.write_container("HoodieCleanerPlan", record)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not avro at all",
        b"Obj\x01garbage-garbage-garbage",
    ],
    ids=["empty", "no-magic", "garbage-header"],
)
def test_garbage_is_a_corrupt_file_error_naming_the_file(data: bytes) -> None:
    with pytest.raises(CorruptFileError) as error:
        container.read_container(data, WHERE)
    assert error.value.where == WHERE
    assert WHERE in str(error.value) and "hint:" in str(error.value)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.9, 0.99])
def test_truncated_file_is_a_corrupt_file_error(keep: float) -> None:
    data = container.write_container("HoodieCleanerPlan", plan_record())
    with pytest.raises(CorruptFileError, match=WHERE):
        container.read_container(data[: int(len(data) * keep)], WHERE)


def test_damaged_sync_marker_is_a_corrupt_file_error() -> None:
    data = bytearray(container.write_container("HoodieCleanerPlan", plan_record()))
    data[-1] ^= 0xFF
    with pytest.raises(CorruptFileError, match=WHERE):
        container.read_container(bytes(data), WHERE)


def _fastavro_container(records: list[dict[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    fastavro.writer(
        buffer, fastavro.parse_schema(schemas.self_contained_schema("HoodieInstantInfo")), records
    )
    return buffer.getvalue()


@pytest.mark.parametrize("count", [0, 2])
def test_anything_but_exactly_one_record_is_corrupt(count: int) -> None:
    records = [{"commitTime": "1", "action": "commit"}] * count
    with pytest.raises(CorruptFileError, match="exactly one"):
        container.read_container(_fastavro_container(records), WHERE)


def test_zigzag_varints_match_avro() -> None:
    for value in (0, 1, -1, 63, 64, -65, 300, 2**31, 2**62):
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, "long", value)
        assert encode_long(value) == buffer.getvalue(), value


def test_the_container_block_holds_the_bare_datum() -> None:
    record = plan_record()
    datum = container.encode_datum("HoodieCleanerPlan", record)
    assert (
        fastavro.schemaless_reader(io.BytesIO(datum), schemas.parsed_schema("HoodieCleanerPlan"), None)
        == record
    )
    assert container.write_container("HoodieCleanerPlan", record)[:-16].endswith(datum)
