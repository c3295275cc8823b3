"""Base files on the real Hudi fixtures: our bloom filter is byte-identical to Hudi's, a rewrite
of a base file has Hudi's footer and rows, and hudi-rs reads a table with a rewritten base file
exactly as before."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from maintainer.hudi.parquet import basefile, bloom, thrift_compact
from maintainer.storage import Storage
from tests.support import oracle
from tests.support.fixtures import FixtureTable, base_files, fixture_names

pytestmark = pytest.mark.fixtures

NON_LANCE = [n for n in fixture_names() if "lance" not in n]
HUDI_FOOTER_KEYS = (
    basefile.MIN_RECORD_KEY,
    basefile.MAX_RECORD_KEY,
    bloom.BLOOM_FILTER_KEY,
    bloom.TYPE_CODE_KEY,
    basefile.AVRO_SCHEMA_KEY,
    basefile.WRITER_MODEL_KEY,
)


def populates_meta_fields(table: FixtureTable) -> bool:
    properties = (table.path / ".hoodie" / "hoodie.properties").read_text()
    return "hoodie.populate.meta.fields=false" not in properties


def footer_values(path: Path) -> dict[str, str]:
    metadata = pq.ParquetFile(path).metadata.metadata or {}
    return {k.decode(): v.decode() for k, v in metadata.items()}


def files_with_bloom_filters(table: FixtureTable) -> list[Path]:
    if not populates_meta_fields(table):
        return []
    return [p for p in base_files(table) if bloom.BLOOM_FILTER_KEY in footer_values(p)]


@pytest.mark.parametrize("name", NON_LANCE)
def test_bloom_filter_rebuilt_from_record_keys_is_byte_identical(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = fixture_table(name)
    files = files_with_bloom_filters(table)
    if not files:
        pytest.skip(f"{name}: no base file with a bloom filter (or meta fields not populated)")
    for path in files:
        footer = footer_values(path)
        keys = pq.read_table(path, columns=[basefile.RECORD_KEY]).column(0)
        built = bloom.build_bloom_filter(keys)
        assert built.serialize() == footer[bloom.BLOOM_FILTER_KEY], path
        parsed = bloom.parse_bloom_filter(footer[bloom.BLOOM_FILTER_KEY], footer.get(bloom.TYPE_CODE_KEY))
        assert parsed == built
        assert all(parsed.might_contain(k) for k in keys.to_pylist())


def table_avro_schema(path: Path) -> str:
    """The table's latest Avro schema (no meta fields), as hudi reads it from the commit metadata."""
    import hudi

    return str(hudi.HudiTable(str(path)).get_schema_in_avro_str())


def rewrite(
    source: Path, storage: Storage, relative_path: str, avro_schema: str, populate_meta_fields: bool = True
) -> basefile.BaseFileFooter:
    """Write ``source``'s rows (meta columns kept) into ``relative_path`` with our writer."""
    original = pq.read_table(source)
    partition = os.path.dirname(relative_path)
    target = basefile.BaseFileTarget(relative_path, partition, instant_time=source.stem.rsplit("_", 1)[1])
    settings = basefile.ParquetSettings(populate_meta_fields=populate_meta_fields)
    with basefile.BaseFileWriter(storage, target, avro_schema, settings) as writer:
        writer.write_hoodie_records(original)
        return writer.close()


@pytest.mark.parametrize("name", NON_LANCE)
def test_rewritten_base_files_have_hudis_footer_and_rows(
    name: str, fixture_table: Callable[[str], FixtureTable], tmp_path: Path
) -> None:
    table = fixture_table(name)
    files = [p for p in base_files(table) if pq.ParquetFile(p).metadata.num_rows > 0]
    if not files:
        pytest.skip(f"{name}: no non-empty base file")
    storage = Storage(str(tmp_path))
    table_schema = table_avro_schema(table.path)
    populate = populates_meta_fields(table)
    for source in files:
        relative = source.relative_to(table.path).as_posix()
        expected = footer_values(source)
        by_avro_writer = basefile.AVRO_SCHEMA_KEY in expected
        # files of Spark's row writer (e.g. v8 compactions) carry no Avro schema: use the table's
        schema = expected.get(basefile.AVRO_SCHEMA_KEY, table_schema)
        written = rewrite(source, storage, relative, schema, populate)
        actual = footer_values(tmp_path / relative)
        for key in HUDI_FOOTER_KEYS:
            if by_avro_writer or key in expected:
                assert actual.get(key) == expected.get(key), (source, key)
        assert pq.read_table(tmp_path / relative).to_pylist() == pq.read_table(source).to_pylist()
        assert pq.ParquetFile(tmp_path / relative).metadata.row_group(0).column(0).compression == "GZIP"
        read_back = basefile.read_footer(storage, relative)
        assert read_back == written
        assert read_back.num_rows == pq.ParquetFile(source).metadata.num_rows


@pytest.mark.parametrize("name", NON_LANCE)
def test_writer_schema_is_the_table_schema_with_meta_fields_as_hudi_writes_it(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = fixture_table(name)
    footers = {footer_values(p).get(basefile.AVRO_SCHEMA_KEY) for p in base_files(table)} - {None}
    if not footers:
        pytest.skip(f"{name}: no base file written by Hudi's Avro writer")
    assert basefile.with_meta_fields(table_avro_schema(table.path)) in footers


def latest_base_file(path: Path) -> str:
    import hudi

    slices = [s for s in hudi.HudiTable(str(path)).get_file_slices() if s.base_file_name]
    assert slices, f"{path}: no file slice with a base file"
    # merge-on-read: prefer a slice whose base file is merged with log files
    chosen = max(slices, key=lambda s: (s.has_log_files(), s.creation_instant_time))
    return str(chosen.base_file_relative_path())


@pytest.mark.parametrize(
    "name",
    [
        "sample_table_cow_v6_complexkeygen_hivestyle",
        "sample_table_cow_v8_nonpartitioned",
        "sample_table_cow_v9_txns_simple_meta",
        "quickstart_trips_table_mor_avro_v6_trips_8i1u",
        "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
    ],
)
def test_hudi_reads_a_table_whose_base_file_we_rewrote(
    name: str, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    if name not in NON_LANCE:
        pytest.skip(f"fixture {name} is not available")
    table = fixture_copy(name)
    before = oracle.snapshot_rows(table.path)
    relative = latest_base_file(table.path)
    source = table.path / relative
    original_rows = pq.read_table(source).to_pylist()
    (table.path.parent / "staging").mkdir()
    staged = Storage(str(table.path.parent / "staging"))
    schema = footer_values(source).get(basefile.AVRO_SCHEMA_KEY) or table_avro_schema(table.path)
    rewrite(source, staged, relative, schema)
    source.write_bytes((table.path.parent / "staging" / relative).read_bytes())
    assert "parquet-cpp" in str(pq.ParquetFile(source).metadata.created_by)  # really our file now
    assert pq.read_table(source).to_pylist() == original_rows
    assert oracle.snapshot_rows(table.path) == before


def written_in_one_go(source: Path) -> bool:
    """True when every row was inserted by the file's own write, numbered 0, 1, … in file order."""
    meta = pq.read_table(source, columns=[basefile.COMMIT_SEQNO]).column(0).to_pylist()
    instant, partition_id = instant_and_task_partition(source)
    return bool(meta) and meta == [f"{instant}_{partition_id}_{i}" for i in range(len(meta))]


def instant_and_task_partition(source: Path) -> tuple[str, int]:
    """From ``<fileId>_<taskPartition>-<stage>-<attempt>_<instant>.parquet``."""
    _, token, instant = source.stem.rsplit("_", 2)
    return instant, int(token.split("-")[0])


@pytest.mark.parametrize("name", NON_LANCE)
def test_new_records_get_the_meta_columns_hudi_gave_them(
    name: str, fixture_table: Callable[[str], FixtureTable], tmp_path: Path
) -> None:
    table = fixture_table(name)
    if not populates_meta_fields(table):
        pytest.skip(f"{name}: meta fields are not populated")
    files = [p for p in base_files(table) if written_in_one_go(p)]
    if not files:
        pytest.skip(f"{name}: no base file whose rows were all inserted by its own write")
    storage = Storage(str(tmp_path))
    schema = table_avro_schema(table.path)
    for source in files:
        original = pq.read_table(source)
        relative = source.relative_to(table.path).as_posix()
        instant, partition_id = instant_and_task_partition(source)
        partition = original.column(basefile.PARTITION_PATH)[0].as_py()
        target = basefile.BaseFileTarget(relative, partition, instant, task_partition_id=partition_id)
        data = original.drop_columns(list(basefile.META_FIELDS))
        with basefile.BaseFileWriter(
            storage, target, footer_values(source).get(basefile.AVRO_SCHEMA_KEY, schema)
        ) as w:
            for batch in data.to_batches(max_chunksize=2):  # several batches: numbering continues
                w.write(batch, original.column(basefile.RECORD_KEY).slice(w.num_rows, batch.num_rows))
        assert pq.read_table(tmp_path / relative).to_pylist() == original.to_pylist(), source
        expected, actual = footer_values(source), footer_values(tmp_path / relative)
        for key in HUDI_FOOTER_KEYS:
            if basefile.AVRO_SCHEMA_KEY in expected or key in expected:
                assert actual.get(key) == expected.get(key), (source, key)


@pytest.mark.parametrize("name", NON_LANCE)
def test_hudi_written_footers_and_page_headers_write_back_to_the_same_bytes(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    """parquet-mr's Thrift, read by the compact protocol reader the gzip sink rewrites footers with."""
    table = fixture_table(name)
    files = list(base_files(table))
    if not files:
        pytest.skip(f"{name}: no Parquet base file")
    for path in files:
        data = path.read_bytes()
        length = int.from_bytes(data[-8:-4], "little")
        footer = data[-8 - length : -8]
        metadata, end = thrift_compact.read_struct(footer)
        assert end == length, path
        assert thrift_compact.write_struct(metadata) == footer, path
        header, body_at = thrift_compact.read_struct(data, 4)  # the first page's header
        assert thrift_compact.write_struct(header) == data[4:body_at], path
