"""Decoding only a completed clean's retention fields gives what the full decode gives."""

from __future__ import annotations

import io
from dataclasses import replace

import fastavro
import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi import payloads as p
from maintainer.hudi.payloads.clean_retention import CleanRetention, decode_clean_retention
from tests.unit.hudi.payloads import samples


def _many_files(count: int) -> p.CleanMetadata:
    names = tuple(f"f{i}_0-1-2_20240101000000000.parquet" for i in range(count))
    partition = p.CleanPartitionMetadata(
        partition_path="a",
        policy="KEEP_LATEST_COMMITS",
        delete_path_patterns=names,
        success_delete_files=names,
    )
    return replace(samples.clean_metadata(), partition_metadata={"a": partition}, extra_metadata={"k": "v"})


@pytest.mark.parametrize(
    "metadata",
    [samples.clean_metadata(), replace(samples.clean_metadata(), extra_metadata={}), _many_files(500)],
    ids=["no-extra", "empty-extra", "many-files"],
)
def test_retention_fields_match_the_full_decode(metadata: p.CleanMetadata) -> None:
    data = p.encode_avro(metadata)
    full = p.decode_clean_metadata(data, "clean")
    assert full is not None
    assert decode_clean_retention(data, "clean") == CleanRetention(
        full.earliest_commit_to_retain, full.extra_metadata, full.last_completed_commit_timestamp
    )


def test_empty_file_is_none() -> None:
    assert decode_clean_retention(b"", "clean") is None


def test_a_writer_schema_without_extra_metadata_gives_none() -> None:
    schema = {
        "type": "record",
        "name": "HoodieCleanMetadata",
        "namespace": "org.apache.hudi.avro.model",
        "fields": [
            {"name": "startCleanTime", "type": "string"},
            {"name": "earliestCommitToRetain", "type": "string"},
        ],
    }
    out = io.BytesIO()
    fastavro.writer(
        out, fastavro.parse_schema(schema), [{"startCleanTime": "1", "earliestCommitToRetain": "2"}]
    )
    assert decode_clean_retention(out.getvalue(), "clean") == CleanRetention("2", None)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not avro", "no 'Obj"),
        (
            p.encode_avro(samples.cleaner_plan()),
            "expected an Avro HoodieCleanMetadata, found HoodieCleanerPlan",
        ),
        (p.encode_avro(samples.clean_metadata())[:-40], "cannot decode the Avro container"),
    ],
    ids=["not-a-container", "another-payload", "cut-short"],
)
def test_damaged_files_are_corrupt_file_errors_naming_the_file(data: bytes, message: str) -> None:
    with pytest.raises(CorruptFileError, match=message) as raised:
        decode_clean_retention(data, "t/.hoodie/1.clean")
    assert "t/.hoodie/1.clean" in str(raised.value)
