"""The codec of new base files: the slice's base file codec is kept (level: the configured one
for the same codec, else Hudi's), else the manifest's compaction.parquet_compression, else
hoodie.properties' hoodie.parquet.compression.codec, else gzip (level 6)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from maintainer.errors import ApplyError
from maintainer.executors.common.codec import (
    CODEC_PROPERTY,
    configured_settings,
    slice_settings,
    unique_key_columns,
)
from maintainer.executors.common.slice_read import CommittedInstants
from maintainer.executors.compaction.operation import (
    CompactionTask,
    SliceToCompact,
    compact_slice,
)
from maintainer.hudi import logformat
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings, file_codec
from maintainer.hudi.parquet.codecs import parse_parquet_compression
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.storage import Storage
from tests.unit.services.compaction import states
from tests.unit.services.compaction.records import EVENT_TIME_RULES, KEY_TS_AVRO

AVRO = KEY_TS_AVRO
RULES = EVENT_TIME_RULES
COMMITTED = CommittedInstants(frozenset({"001", "002"}), "001")
LOG = ".fg-0_001.log.1_0-1-1"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("gzip", ("gzip", None)),
        ("ZSTD", ("zstd", None)),
        ("zstd:3", ("zstd", 3)),
        (" gzip:1 ", ("gzip", 1)),
        ("snappy", ("snappy", None)),
        ("uncompressed", ("uncompressed", None)),
    ],
)
def test_parquet_compression_parses(text: str, parsed: tuple[str, int | None]) -> None:
    assert parse_parquet_compression(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lzo", "not a Parquet codec maintainer writes"),
        ("gzip:0", "level must be a whole number from 1 to 9"),
        ("zstd:23", "from 1 to 22"),
        ("zstd:x", "whole number"),
        ("snappy:2", "snappy takes no level"),
    ],
)
def test_parquet_compression_refuses_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_parquet_compression(text)
    with pytest.raises(ValidationError, match=message):
        CompactionSpec(parquet_compression=text)


def test_manifest_option_is_normalised() -> None:
    assert CompactionSpec(parquet_compression="ZSTD:5").parquet_compression == "zstd:5"
    assert CompactionSpec().parquet_compression is None


def _codec_level(settings: ParquetSettings) -> tuple[str, int | None]:
    return settings.compression, settings.compression_level


def test_configured_codec_manifest_then_properties_then_gzip() -> None:
    config = states.config(8)
    assert _codec_level(configured_settings(config)) == ("gzip", 6), "Hudi's default: zlib level 6"
    assert _codec_level(configured_settings(config, "zstd")) == ("zstd", 3), "parquet-mr's zstd level"
    assert _codec_level(configured_settings(config, "gzip:1")) == ("gzip", 1)
    assert _codec_level(configured_settings(config, "uncompressed")) == ("none", None)
    with_property = replace(config, raw={**config.raw, CODEC_PROPERTY: "SNAPPY"})
    assert _codec_level(configured_settings(with_property)) == ("snappy", None)
    assert _codec_level(configured_settings(with_property, "zstd:7")) == ("zstd", 7), "the manifest wins"
    assert configured_settings(config).populate_meta_fields is config.populate_meta_fields


def test_unwritable_property_codec_is_an_error_with_a_hint() -> None:
    config = states.config(8)
    lzo = replace(config, raw={**config.raw, CODEC_PROPERTY: "lzo"})
    with pytest.raises(ApplyError, match=CODEC_PROPERTY) as caught:
        configured_settings(lzo)
    assert "compaction.parquet_compression" in (caught.value.hint or "")
    assert _codec_level(configured_settings(lzo, "gzip")) == ("gzip", 6), "unless the manifest decides"


def test_slice_keeps_its_base_file_codec() -> None:
    gzip = ParquetSettings()
    assert slice_settings(gzip, None) is gzip
    assert _codec_level(slice_settings(gzip, "gzip")) == ("gzip", 6)
    assert _codec_level(slice_settings(gzip, "snappy")) == ("snappy", None)
    assert _codec_level(slice_settings(gzip, "zstd")) == ("zstd", 3)
    zstd5 = ParquetSettings(compression="zstd", compression_level=5)
    assert _codec_level(slice_settings(zstd5, "zstd")) == ("zstd", 5), "the configured level, same codec"
    assert _codec_level(slice_settings(zstd5, "gzip")) == ("gzip", 6)


@pytest.mark.parametrize(
    ("written", "read"),
    [("none", "none"), ("snappy", "snappy"), ("gzip", "gzip"), ("zstd", "zstd"), ("brotli", "brotli"),
     ("lz4", None)],
)  # fmt: skip
def test_file_codec_names_what_pyarrow_writes(written: str, read: str | None) -> None:
    buffer = io.BytesIO()
    pq.write_table(pa.table({"a": [1, 2]}), buffer, compression=written)
    assert file_codec(pq.ParquetFile(io.BytesIO(buffer.getvalue())).metadata) == read


def test_file_codec_of_a_file_without_row_groups_is_unknown() -> None:
    buffer = io.BytesIO()
    pq.ParquetWriter(buffer, pa.schema([("a", pa.int64())]), compression="zstd").close()
    metadata = pq.ParquetFile(io.BytesIO(buffer.getvalue())).metadata
    assert metadata.num_row_groups == 0 and file_codec(metadata) is None


def _task(storage: Storage, base: str | None, parquet: ParquetSettings) -> CompactionTask:
    slice_ = SliceToCompact("p", "fg-0", "001", base, (LOG,))
    return CompactionTask(storage, "005", slice_, "0-1-0", 0, AVRO, RULES, COMMITTED, parquet)


def _write_log(storage: Storage) -> None:
    meta = {"_hoodie_commit_time": "002", "_hoodie_commit_seqno": "002_0_0", "_hoodie_record_key": "z",
            "_hoodie_partition_path": "p", "_hoodie_file_name": "fg-0"}  # fmt: skip
    schema = json.loads(AVRO)
    schema["fields"] = [{"name": n, "type": ["null", "string"], "default": None} for n in meta] + schema[
        "fields"
    ]
    block = logformat.avro_data_block([{**meta, "k": "z", "ts": 2}], json.dumps(schema), "002")
    storage.write_bytes(f"p/{LOG}", block)


def _new_file_codec(tmp_path: Path, path: str | None) -> str | None:
    return file_codec(pq.ParquetFile(tmp_path / (path or "")).metadata)


@pytest.mark.parametrize("codec", ["snappy", "zstd", "gzip", "none"])
def test_compaction_writes_the_base_files_codec(tmp_path: Path, codec: str) -> None:
    storage = Storage(str(tmp_path))
    base = "fg-0_0-1-0_001.parquet"
    settings = ParquetSettings(compression=codec, compression_level=None)
    with BaseFileWriter(storage, BaseFileTarget(f"p/{base}", "p", "001"), AVRO, settings) as writer:
        writer.write(pa.table({"k": ["a", "b"], "ts": [1, 1]}), pa.array(["a", "b"]))
    _write_log(storage)
    configured = ParquetSettings(compression="gzip", compression_level=6)
    stat = compact_slice(_task(storage, base, configured))
    assert _new_file_codec(tmp_path, stat.path) == codec
    assert sorted(r["k"] for r in pq.read_table(tmp_path / (stat.path or "")).to_pylist()) == ["a", "b", "z"]


def test_log_only_slice_takes_the_configured_codec(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    _write_log(storage)
    stat = compact_slice(_task(storage, None, configured_settings(states.config(8), "snappy")))
    assert _new_file_codec(tmp_path, stat.path) == "snappy"


@pytest.mark.parametrize(
    ("fields", "unique"),
    [("uuid", ("uuid",)), ("rider.id", ("rider.id",)), ("city,uuid", ()), ("", ())],
)
def test_a_single_record_key_field_is_unique_in_every_file(fields: str, unique: tuple[str, ...]) -> None:
    config = states.config(8)
    keyed = replace(config, record_key_fields=tuple(f for f in fields.split(",") if f))
    assert unique_key_columns(keyed) == unique
    assert configured_settings(keyed).unique_columns == unique
    assert slice_settings(configured_settings(keyed), "snappy").unique_columns == unique


def test_the_record_key_field_of_a_compacted_file_is_written_plain(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    _write_log(storage)
    keyed = replace(states.config(8), record_key_fields=("k",))
    stat = compact_slice(_task(storage, None, configured_settings(keyed)))
    group = pq.ParquetFile(tmp_path / (stat.path or "")).metadata.row_group(0)
    encodings = {group.column(c).path_in_schema: group.column(c).encodings for c in range(group.num_columns)}
    dictionary = {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}
    assert not dictionary & set(encodings["k"]), "the key field: plain"
    assert dictionary & set(encodings["ts"]), "other data columns keep their dictionary"
    assert pq.read_table(tmp_path / (stat.path or "")).column("k").to_pylist() == ["z"]
