"""The base-file writer and footer reader on synthetic records."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.errors import CorruptFileError, TableFormatError
from maintainer.hudi.logformat.arrow import arrow_schema
from maintainer.hudi.parquet import basefile, bloom, thrift_compact
from maintainer.hudi.parquet import gzip as parquet_gzip
from maintainer.storage import Storage

DATA_SCHEMA = {
    "type": "record",
    "name": "trips_record",
    "namespace": "hoodie.trips",
    "fields": [
        {"name": "uuid", "type": ["null", "string"], "default": None},
        {"name": "ts", "type": "long"},
        {"name": "fare", "type": ["null", "double"], "default": None},
        {
            "name": "amount",
            "type": [
                "null",
                {
                    "type": "fixed",
                    "name": "fixed",
                    "size": 5,
                    "logicalType": "decimal",
                    "precision": 10,
                    "scale": 2,
                },
            ],
            "default": None,
        },
        {
            "name": "at",
            "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}],
            "default": None,
        },
    ],
}
AVRO = json.dumps(DATA_SCHEMA, separators=(",", ":"))
INSTANT = "20250101120000123"
PATH = "city=sf/abc-0_3-10-20_20250101120000123.parquet"


def rows(start: int, count: int) -> pa.Table:
    return pa.table(
        {
            "uuid": [f"key-{i:04d}" for i in range(start, start + count)],
            "ts": pa.array(range(start, start + count), pa.int64()),
            "fare": [float(i) for i in range(start, start + count)],
            "amount": pa.array([None] * count, pa.decimal128(10, 2)),
            "at": pa.array([i * 1000 for i in range(start, start + count)], pa.timestamp("us", "UTC")),
        }
    )


def target() -> basefile.BaseFileTarget:
    return basefile.BaseFileTarget(PATH, "city=sf", INSTANT, task_partition_id=3)


def write_new(storage: Storage, batches: list[pa.Table], **settings: Any) -> basefile.BaseFileFooter:
    with basefile.BaseFileWriter(storage, target(), AVRO, basefile.ParquetSettings(**settings)) as writer:
        for batch in batches:
            writer.write(batch, batch.column("uuid"))
        return writer.close()


def test_meta_columns_come_first_and_are_filled_as_hudi_fills_them(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    write_new(storage, [rows(5, 2), rows(0, 3)])
    table = pq.read_table(tmp_path / PATH)
    assert table.column_names[:5] == list(basefile.META_FIELDS)
    assert table.column_names[5:] == ["uuid", "ts", "fare", "amount", "at"]
    first, last = table.slice(0, 1).to_pylist()[0], table.slice(4, 1).to_pylist()[0]
    assert first[basefile.COMMIT_TIME] == INSTANT
    assert first[basefile.COMMIT_SEQNO] == f"{INSTANT}_3_0"
    assert last[basefile.COMMIT_SEQNO] == f"{INSTANT}_3_4"  # the record index runs across batches
    assert last[basefile.RECORD_KEY] == "key-0002"
    assert first[basefile.PARTITION_PATH] == "city=sf"
    assert first[basefile.FILE_NAME] == "abc-0_3-10-20_20250101120000123.parquet"


def test_footer_carries_hudis_metadata(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    written = write_new(storage, [rows(5, 2), rows(0, 3)])
    values = {k.decode(): v.decode() for k, v in pq.ParquetFile(tmp_path / PATH).metadata.metadata.items()}
    assert set(values) == {
        "hoodie_min_record_key",
        "hoodie_max_record_key",
        "org.apache.hudi.bloomfilter",
        "hoodie_bloom_filter_type_code",
        "writer.model.name",
        "parquet.avro.schema",
    }
    assert (values["hoodie_min_record_key"], values["hoodie_max_record_key"]) == ("key-0000", "key-0006")
    assert values["hoodie_bloom_filter_type_code"] == "DYNAMIC_V0"
    assert values["writer.model.name"] == "avro"
    assert values["parquet.avro.schema"] == basefile.with_meta_fields(AVRO)
    keys = ["key-0005", "key-0006", "key-0000", "key-0001", "key-0002"]
    assert values["org.apache.hudi.bloomfilter"] == bloom.build_bloom_filter(keys).serialize()
    assert basefile.read_footer(storage, PATH) == written
    assert written.num_rows == 5
    assert written.bloom_filter is not None and written.bloom_filter.might_contain("key-0006")


def test_parquet_layout_follows_hudis_defaults(tmp_path: Path) -> None:
    write_new(Storage(str(tmp_path)), [rows(0, 10)])
    parquet = pq.ParquetFile(tmp_path / PATH)
    assert parquet.metadata.format_version == "1.0"
    column = parquet.metadata.row_group(0).column(0)
    assert column.compression == "GZIP"
    assert column.statistics is not None and column.statistics.has_min_max
    fields = {f.name: f for f in parquet.schema_arrow}
    assert not fields["ts"].nullable  # a plain Avro "long" is a required column
    assert fields["fare"].nullable and fields[basefile.RECORD_KEY].nullable
    assert fields["amount"].type == pa.decimal128(10, 2)
    assert fields["at"].type == pa.timestamp("us", "UTC")
    assert b"ARROW:schema" not in (parquet.metadata.metadata or {})


def test_row_groups_are_cut_by_buffered_bytes(tmp_path: Path) -> None:
    write_new(Storage(str(tmp_path)), [rows(i * 100, 100) for i in range(5)], row_group_bytes=1)
    metadata = pq.ParquetFile(tmp_path / PATH).metadata
    assert metadata.num_row_groups == 5
    assert metadata.num_rows == 500


def test_records_with_meta_columns_keep_them_but_take_this_file_name(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    write_new(storage, [rows(0, 4)])
    old = pq.read_table(tmp_path / PATH)
    moved = basefile.BaseFileTarget(
        "city=sf/abc-0_0-1-2_20250102000000000.parquet", "city=sf", "20250102000000000"
    )
    with basefile.BaseFileWriter(storage, moved, AVRO) as writer:
        writer.write_hoodie_records(old.select(list(reversed(old.column_names))))
        footer = writer.close()
    new = pq.read_table(tmp_path / moved.path)
    assert new.drop_columns([basefile.FILE_NAME]).equals(old.drop_columns([basefile.FILE_NAME]))
    assert set(new.column(basefile.FILE_NAME).to_pylist()) == {moved.file_name}
    assert footer.min_record_key == "key-0000" and footer.max_record_key == "key-0003"


def test_an_empty_file_has_a_bloom_filter_but_no_key_range(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    footer = write_new(storage, [])
    assert footer.num_rows == 0
    assert footer.min_record_key is None and footer.max_record_key is None
    assert footer.bloom_filter == bloom.build_bloom_filter([])
    assert pq.read_table(tmp_path / PATH).num_rows == 0


def test_a_failed_write_leaves_no_file(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    with (
        pytest.raises(TableFormatError, match="no column 'fare'"),
        basefile.BaseFileWriter(storage, target(), AVRO) as w,
    ):
        w.write(rows(0, 2), rows(0, 2).column("uuid"))
        w.write(rows(0, 2).drop_columns(["fare"]), rows(0, 2).column("uuid"))
    assert not (tmp_path / PATH).exists()


@pytest.mark.parametrize(
    ("data", "keys", "message"),
    [
        (rows(0, 2), pa.array(["a"]), "1 record keys for 2 rows"),
        (rows(0, 2), pa.array(["a", None]), "no record key"),
        (rows(0, 2).set_column(1, "ts", pa.array(["x", "y"])), pa.array(["a", "b"]), "do not fit"),
    ],
)
def test_records_that_do_not_fit_are_refused(
    tmp_path: Path, data: pa.Table, keys: pa.Array, message: str
) -> None:
    with (
        pytest.raises(TableFormatError, match=message),
        basefile.BaseFileWriter(Storage(str(tmp_path)), target(), AVRO) as writer,
    ):
        writer.write(data, keys)


def test_with_meta_fields_prepends_hudis_meta_fields_once() -> None:
    with_meta = basefile.with_meta_fields(AVRO)
    fields = json.loads(with_meta)["fields"]
    assert [f["name"] for f in fields[:5]] == list(basefile.META_FIELDS)
    assert fields[0] == {
        "name": "_hoodie_commit_time",
        "type": ["null", "string"],
        "doc": "",
        "default": None,
    }
    assert with_meta.startswith(
        '{"type":"record","name":"trips_record","namespace":"hoodie.trips","fields":['
    )
    assert basefile.with_meta_fields(with_meta) is with_meta


@pytest.mark.parametrize("schema", ["not json", '"string"', '{"type": "enum", "name": "e", "symbols": []}'])
def test_a_schema_that_is_not_a_record_is_refused(schema: str) -> None:
    with pytest.raises(TableFormatError):
        basefile.with_meta_fields(schema)


def test_reading_the_footer_of_a_non_parquet_file_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "broken.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(CorruptFileError, match=r"broken\.parquet"):
        basefile.read_footer(Storage(str(tmp_path)), "broken.parquet")


def test_without_populated_meta_fields_only_the_file_name_is_written(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    settings = basefile.ParquetSettings(populate_meta_fields=False)
    with basefile.BaseFileWriter(storage, target(), AVRO, settings) as writer:
        writer.write(rows(0, 3), None)
        footer = writer.close()
    meta = pq.read_table(tmp_path / PATH, columns=list(basefile.META_FIELDS)).to_pylist()
    assert {row[basefile.FILE_NAME] for row in meta} == {target().file_name}
    assert all(row[name] is None for row in meta for name in basefile.META_FIELDS[:4])
    assert set(footer.key_values) == {"writer.model.name", "parquet.avro.schema"}
    assert footer.bloom_filter is None and footer.min_record_key is None


def test_a_simple_filter_is_written_without_a_type_code(tmp_path: Path) -> None:
    config = bloom.BloomFilterConfig(type_code=bloom.SIMPLE)
    footer = write_new(Storage(str(tmp_path)), [rows(0, 3)], bloom_filter=config)
    assert bloom.TYPE_CODE_KEY not in footer.key_values
    assert footer.bloom_filter is not None and footer.bloom_filter.type_code == bloom.SIMPLE
    assert footer.bloom_filter == bloom.build_bloom_filter(["key-0000", "key-0001", "key-0002"], config)


def test_new_records_need_their_keys_when_meta_fields_are_populated(tmp_path: Path) -> None:
    with (
        pytest.raises(TableFormatError, match="no record keys"),
        basefile.BaseFileWriter(Storage(str(tmp_path)), target(), AVRO) as writer,
    ):
        writer.write(rows(0, 2), None)


def test_key_range_follows_java_string_order(tmp_path: Path) -> None:
    # U+1F642 is a surrogate pair in Java (0xD83D…) and so sorts before U+FFFD there
    keys = ["\ufffdz", "\U0001f642x", "abc"]
    data = rows(0, 3).set_column(0, "uuid", pa.array(keys))
    with basefile.BaseFileWriter(Storage(str(tmp_path)), target(), AVRO) as writer:
        writer.write(data, data.column("uuid"))
        footer = writer.close()
    assert (footer.min_record_key, footer.max_record_key) == ("abc", "\ufffdz")


def test_bad_parquet_settings_are_refused_before_anything_is_left_behind(tmp_path: Path) -> None:
    settings = basefile.ParquetSettings(compression="no-such-codec")
    with pytest.raises(TableFormatError, match="cannot write Parquet"):
        basefile.BaseFileWriter(Storage(str(tmp_path)), target(), AVRO, settings)
    assert not (tmp_path / PATH).exists()


@pytest.mark.parametrize("level", [None, 1, 9])
def test_gzip_base_files_are_pyarrows_gzip_files_when_deflated_alike(
    tmp_path: Path, level: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libdeflate deflates the pages; with stock zlib instead the file is pyarrow's own gzip file."""
    monkeypatch.setattr(parquet_gzip, "page_compressor", parquet_gzip.zlib_compressor)
    chunks = [rows(i * 300, 300) for i in range(4)]
    write_new(Storage(str(tmp_path)), chunks, row_group_bytes=1, compression_level=level)
    written = (tmp_path / PATH).read_bytes()
    parquet = pq.ParquetFile(tmp_path / PATH)
    expected = io.BytesIO()
    with pq.ParquetWriter(
        expected,
        arrow_schema(basefile.with_meta_fields(AVRO)),
        version="1.0",
        compression="gzip",
        compression_level=6 if level is None else level,
        use_dictionary=list(basefile.dictionary_columns(arrow_schema(basefile.with_meta_fields(AVRO)))),
        data_page_size=1024 * 1024,
        dictionary_pagesize_limit=1024 * 1024,
        store_schema=False,
    ) as writer:
        for index in range(parquet.metadata.num_row_groups):
            group = parquet.read_row_group(index)
            writer.write_table(group, row_group_size=group.num_rows)
        writer.add_key_value_metadata(key_values_in_written_order(written))
    assert written == expected.getvalue()


def key_values_in_written_order(data: bytes) -> dict[bytes, bytes]:
    length = int.from_bytes(data[-8:-4], "little")
    metadata, _ = thrift_compact.read_struct(data[-8 - length : -8])
    entries = metadata.get(5)  # FileMetaData.key_value_metadata
    assert isinstance(entries, thrift_compact.TList)
    pairs = [(e.get(1), e.get(2)) for e in entries.items if isinstance(e, thrift_compact.Struct)]
    return {k: v for k, v in pairs if isinstance(k, bytes) and isinstance(v, bytes)}


def test_without_a_working_gzip_sink_pyarrow_gzips_the_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert parquet_gzip.sink_supported()  # this environment's pyarrow and libdeflate
    monkeypatch.setattr(parquet_gzip, "sink_supported", lambda: False)
    monkeypatch.setattr(parquet_gzip, "GzipPagesSink", None)  # never used
    write_new(Storage(str(tmp_path)), [rows(0, 50)])
    parquet = pq.ParquetFile(tmp_path / PATH)
    assert parquet.metadata.row_group(0).column(0).compression == "GZIP"
    assert parquet.read().num_rows == 50


def test_pages_the_gzip_sink_cannot_rewrite_fail_the_write_and_leave_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> None:
        raise parquet_gzip.ParquetRewriteError("a page of type 3 at 4")

    monkeypatch.setattr(parquet_gzip.GzipPagesSink, "_pass_page", refuse)
    with pytest.raises(TableFormatError, match="cannot gzip the Parquet pages: a page of type 3") as raised:
        write_new(Storage(str(tmp_path)), [rows(0, 50)])
    assert raised.value.hint and "pyarrow" in raised.value.hint
    assert not (tmp_path / PATH).exists()


@pytest.mark.parametrize(("compression", "level"), [("gzip", 6), ("snappy", None), ("zstd", 3)])
def test_the_writer_tells_the_size_of_the_file_it_wrote(
    tmp_path: Path, compression: str, level: int | None
) -> None:
    """Compaction records the new file's size from the writer, without a stat (a request per
    file on object stores): it is the size a listing finds."""
    storage = Storage(str(tmp_path))
    with basefile.BaseFileWriter(
        storage, target(), AVRO, basefile.ParquetSettings(compression=compression, compression_level=level)
    ) as writer:
        assert writer.bytes_written is None
        writer.write(rows(0, 500), rows(0, 500).column("uuid"))
        writer.close()
    assert writer.bytes_written == (tmp_path / PATH).stat().st_size > 0


def test_every_column_but_the_unique_meta_columns_is_dictionary_encoded() -> None:
    schema = pa.schema(
        [
            pa.field(basefile.COMMIT_TIME, pa.string()),
            pa.field(basefile.COMMIT_SEQNO, pa.string()),
            pa.field(basefile.RECORD_KEY, pa.string()),
            pa.field("point", pa.struct([("x", pa.int64()), ("y", pa.string())])),
            pa.field("tags", pa.list_(pa.string())),
            pa.field("attrs", pa.map_(pa.string(), pa.int32())),
        ]
    )
    assert basefile.dictionary_columns(schema) == (
        basefile.COMMIT_TIME,
        "point.x",
        "point.y",
        "tags.list.element",
        "attrs.key_value.key",
        "attrs.key_value.value",
    )


def test_unique_data_columns_lose_their_dictionary_too() -> None:
    schema = pa.schema(
        [
            pa.field(basefile.RECORD_KEY, pa.string()),
            pa.field("uuid", pa.string()),
            pa.field("rider", pa.struct([("id", pa.string()), ("name", pa.string())])),
        ]
    )
    assert basefile.dictionary_columns(schema, ("uuid",)) == ("rider.id", "rider.name")
    assert basefile.dictionary_columns(schema, ("rider.id",)) == ("uuid", "rider.name")
    assert basefile.dictionary_columns(schema, ("not_a_column",)) == ("uuid", "rider.id", "rider.name")


def test_the_unique_meta_columns_are_written_plain(tmp_path: Path) -> None:
    write_new(Storage(str(tmp_path)), [rows(0, 2_000)])
    metadata = pq.ParquetFile(tmp_path / PATH).metadata
    group = metadata.row_group(0)
    encodings = {group.column(c).path_in_schema: group.column(c).encodings for c in range(group.num_columns)}
    for column, used in encodings.items():
        dictionary = "PLAIN_DICTIONARY" in used or "RLE_DICTIONARY" in used
        assert dictionary == (column not in basefile.UNIQUE_IN_EVERY_FILE), (column, used)
