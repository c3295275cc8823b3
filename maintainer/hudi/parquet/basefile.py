"""Hudi Parquet base files: write them as Hudi's Avro Parquet writer does, read their footers.

A base file holds the five meta columns, then the data columns, in the order of the
writer's Avro schema; every Avro ``["null", T]`` union is an optional Parquet column.
Its footer key-value metadata is what ``HoodieAvroParquetWriter`` leaves there:

* ``hoodie_min_record_key`` / ``hoodie_max_record_key`` (Java ``String`` order; absent in
  an empty file),
* ``org.apache.hudi.bloomfilter`` and, for dynamic filters only, ``hoodie_bloom_filter_type_code``
  (see :mod:`.bloom`),
* ``writer.model.name`` = ``avro`` and ``parquet.avro.schema`` (the writer schema JSON).

With ``hoodie.populate.meta.fields=false`` only ``_hoodie_file_name`` is filled and the
footer has no bloom filter or key range.

Hudi's Parquet defaults are kept: gzip (level 6, as Hadoop's zlib codec; the pages are
deflated by libdeflate, see :mod:`.parquet_gzip`), dictionary encoding (but for the two meta
columns unique in every file and a single record key field, see :func:`dictionary_columns`), 1 MiB pages,
statistics, format version 1.0 and v1 data pages. Row groups are cut by buffered Arrow
bytes rather than parquet-mr's 120 MiB encoded block size, and lists use the 3-level
layout (parquet-avro writes the old 2-level one); readers treat both alike.
"""

from __future__ import annotations

import functools
import io
import json
import posixpath
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, StorageError, TableFormatError
from maintainer.hudi.logformat.arrow import arrow_schema
from maintainer.hudi.parquet import bloom
from maintainer.hudi.parquet import gzip as parquet_gzip
from maintainer.hudi.parquet.deflate_threads import process_threads
from maintainer.hudi.records.keys import KeyRange
from maintainer.storage.fs import Storage

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_FIELDS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)

MIN_RECORD_KEY = "hoodie_min_record_key"
MAX_RECORD_KEY = "hoodie_max_record_key"
AVRO_SCHEMA_KEY = "parquet.avro.schema"
WRITER_MODEL_KEY = "writer.model.name"


UNIQUE_IN_EVERY_FILE = (COMMIT_SEQNO, RECORD_KEY)
"""Meta columns with a distinct value per row of a base file."""


@functools.lru_cache(maxsize=64)
def dictionary_columns(schema: pa.Schema, unique_columns: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The leaf columns (Parquet paths) a base file dictionary-encodes: all but
    :data:`UNIQUE_IN_EVERY_FILE` and ``unique_columns`` (data columns distinct in every file,
    see :attr:`ParquetSettings.unique_columns`). A dictionary of values that never repeat only
    grows to the page limit and falls back to plain encoding: a fifth of the encoding time for
    nothing, and a few percent larger files (bench/README.md). The paths are the ones pyarrow's
    writer gives the schema's leaves (``tags.list.element``, ``point.x``)."""
    empty = io.BytesIO()
    pq.write_table(schema.empty_table(), empty, version="1.0", store_schema=False)
    leaves = pq.ParquetFile(io.BytesIO(empty.getvalue())).schema
    paths = (leaves.column(index).path for index in range(len(leaves)))
    plain = set(UNIQUE_IN_EVERY_FILE) | set(unique_columns)
    return tuple(path for path in paths if path not in plain)


def with_meta_fields(avro_schema: str) -> str:
    """The writer schema: ``avro_schema`` (a record) with Hudi's five meta fields first.

    A schema that already starts with them is returned unchanged (same text). Meta
    fields are ``{"name": …, "type": ["null", "string"], "doc": "", "default": null}``.
    """
    try:
        record = json.loads(avro_schema)
    except json.JSONDecodeError as exc:
        raise TableFormatError(f"the Avro schema is not JSON: {exc}") from exc
    if not isinstance(record, dict) or record.get("type") != "record":
        raise TableFormatError("the Avro schema of a base file must be a record")
    names = [f.get("name") for f in record.get("fields", [])]
    if tuple(names[: len(META_FIELDS)]) == META_FIELDS:
        return avro_schema
    meta = [{"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_FIELDS]
    data = [f for f in record["fields"] if f.get("name") not in META_FIELDS]
    return json.dumps({**record, "fields": meta + data}, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ParquetSettings:
    """The writer settings that shape the file: Hudi's ``hoodie.parquet.*`` and bloom index
    settings, and ``hoodie.populate.meta.fields``. Without populated meta fields Hudi leaves
    every meta column but ``_hoodie_file_name`` null and writes no bloom filter or key range.
    """

    compression: str = "gzip"
    compression_level: int | None = 6
    page_size: int = 1024 * 1024
    dictionary_page_size: int = 1024 * 1024
    row_group_bytes: int = 128 * 1024 * 1024
    bloom_filter: bloom.BloomFilterConfig = field(default_factory=bloom.BloomFilterConfig)
    populate_meta_fields: bool = True
    unique_columns: tuple[str, ...] = ()
    """Data columns (Parquet paths) with a distinct value in every row of a file, written plain
    like the unique meta columns: a table's one record key field (a key is in one file group,
    once). A wrong guess costs compression, never correctness."""


HUDI_CODEC_LEVELS = {"gzip": 6, "zstd": 3}
"""The level Hudi's writer compresses at, by codec: Hadoop's zlib default for gzip, parquet-mr's
``parquet.compression.codec.zstd.level`` default for zstd (the others have none, or none known)."""

_WRITABLE_CODECS = {
    "UNCOMPRESSED": "none",
    "SNAPPY": "snappy",
    "GZIP": "gzip",
    "ZSTD": "zstd",
    "BROTLI": "brotli",
}
"""Footer codec names pyarrow writes as such (LZO it cannot write, LZ4 it writes as LZ4_RAW)."""


def file_codec(metadata: pq.FileMetaData) -> str | None:
    """The codec of a Parquet file (its first column chunk) as pyarrow's writer names it; None for
    a file without row groups or columns, or in a codec pyarrow does not write (LZO, Hadoop LZ4)."""
    if metadata.num_row_groups == 0 or metadata.num_columns == 0:
        return None
    return _WRITABLE_CODECS.get(str(metadata.row_group(0).column(0).compression).upper())


@dataclass(frozen=True, slots=True)
class BaseFileTarget:
    """Where and for which instant a base file is written.

    ``path`` is relative to the storage root (``<partition>/<fileId>_<token>_<instant>.parquet``);
    ``task_partition_id`` is the first number of the write token, used in sequence numbers
    ``<instant>_<task partition id>_<record index>``.
    """

    path: str
    partition_path: str
    instant_time: str
    task_partition_id: int = 0

    @property
    def file_name(self) -> str:
        return posixpath.basename(self.path)


@dataclass(frozen=True, slots=True)
class BaseFileFooter:
    """What Hudi reads from a base file's footer."""

    path: str
    num_rows: int
    min_record_key: str | None
    max_record_key: str | None
    avro_schema: str | None
    bloom_filter: bloom.BloomFilter | None
    key_values: Mapping[str, str]


class BaseFileWriter:
    """Streams record batches into one Hudi base file; the footer is written at :meth:`close`.

    Memory stays bounded by ``settings.row_group_bytes`` of buffered rows plus the bloom
    filter's bit vectors. Record keys go into the bloom filter and the key range on one
    background thread while Parquet encodes and compresses (both release the GIL); it never
    falls more than one row group behind. Use as a context manager: on an exception the partial file
    is deleted.
    """

    def __init__(
        self,
        storage: Storage,
        target: BaseFileTarget,
        avro_schema: str,
        settings: ParquetSettings | None = None,
    ) -> None:
        self.storage = storage
        self.target = target
        self.settings = settings or ParquetSettings()
        self.avro_schema = with_meta_fields(avro_schema)
        self.schema = arrow_schema(self.avro_schema)
        self.num_rows = 0
        self.bytes_written: int | None = None
        """The file's size once :meth:`close` wrote it (what a listing will find; no stat)."""
        self._bloom = bloom.BloomFilterBuilder(self.settings.bloom_filter)
        self._keys = KeyRange()
        self._buffer: list[pa.RecordBatch] = []
        self._buffered_bytes = 0
        self._closed = False
        self._stream = self._open_stream()
        self._gzip_sink = self._open_gzip_sink()
        self._writer = self._open_writer()
        self._hasher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bloom-filter")
        self._hashing: list[Future[None]] = []

    def _open_stream(self) -> pa.NativeFile:
        try:
            return self.storage.open_output_stream(self.target.path)
        except (pa.ArrowException, OSError) as exc:
            raise StorageError(f"cannot create {self.storage.uri(self.target.path)}: {exc}") from exc

    def _open_gzip_sink(self) -> parquet_gzip.GzipPagesSink | None:
        """Gzip pages are deflated here rather than by pyarrow (same format, a third of the CPU)."""
        s = self.settings
        if s.compression.lower() != "gzip" or not parquet_gzip.sink_supported():
            return None
        level = HUDI_CODEC_LEVELS["gzip"] if s.compression_level is None else s.compression_level
        return parquet_gzip.GzipPagesSink(
            self._stream, parquet_gzip.page_compressor(level), process_threads()
        )

    def _open_writer(self) -> pq.ParquetWriter:
        s = self.settings
        gzip_sink = self._gzip_sink
        try:
            return pq.ParquetWriter(
                self._stream if gzip_sink is None else gzip_sink,
                self.schema,
                version="1.0",
                data_page_version="1.0",
                compression=s.compression if gzip_sink is None else "none",
                compression_level=s.compression_level if gzip_sink is None else None,
                data_page_size=s.page_size,
                dictionary_pagesize_limit=s.dictionary_page_size,
                use_dictionary=list(dictionary_columns(self.schema, s.unique_columns)),
                write_statistics=True,
                store_schema=False,
            )
        except (pa.ArrowException, ValueError) as exc:
            self._stream.close()
            self.storage.delete(self.target.path)
            raise TableFormatError(
                f"cannot write Parquet with these settings and schema: {exc}",
                where=self._where,
                hint="check ParquetSettings (codec, level) and the Avro schema",
            ) from exc

    def __enter__(self) -> BaseFileWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            if not self._closed:
                self.close()
        else:
            self.abort()

    # --- writing ----------------------------------------------------------------------

    def write(self, data: pa.RecordBatch | pa.Table, record_keys: pa.Array | pa.ChunkedArray | None) -> None:
        """Write new records: ``data`` has the data columns, meta columns are filled in here.

        ``record_keys`` (one per row) may be None only when meta fields are not populated.
        """
        meta = self._meta_columns(record_keys, data.num_rows)
        columns = {n: meta[n] if n in meta else self._column(data, n) for n in self.schema.names}
        self._append(pa.table(columns))

    def write_hoodie_records(self, records: pa.RecordBatch | pa.Table) -> None:
        """Write records that carry their meta columns (compaction, rewrite): commit time and
        sequence number are kept, ``_hoodie_file_name`` becomes this file's name."""
        names = [n for n in self.schema.names if n != FILE_NAME]
        columns = {n: self._column(records, n) for n in names}
        columns[FILE_NAME] = pa.repeat(pa.scalar(self.target.file_name), records.num_rows)
        self._append(pa.table(columns).select(self.schema.names))

    def _meta_columns(self, keys: pa.Array | pa.ChunkedArray | None, count: int) -> dict[str, pa.Array]:
        t = self.target
        file_names = pa.repeat(pa.scalar(t.file_name), count)
        if not self.settings.populate_meta_fields:
            nulls = pa.nulls(count, pa.string())
            return {
                COMMIT_TIME: nulls,
                COMMIT_SEQNO: nulls,
                RECORD_KEY: nulls,
                PARTITION_PATH: nulls,
                FILE_NAME: file_names,
            }
        if keys is None or len(keys) != count:
            given = "no" if keys is None else len(keys)
            raise TableFormatError(f"{given} record keys for {count} rows", where=self._where)
        if isinstance(keys, pa.ChunkedArray):
            keys = keys.combine_chunks()
        indices = pa.array(range(self.num_rows, self.num_rows + count), pa.int64())
        prefix = pa.scalar(f"{t.instant_time}_{t.task_partition_id}_")
        return {
            COMMIT_TIME: pa.repeat(pa.scalar(t.instant_time), count),
            COMMIT_SEQNO: pc.binary_join_element_wise(prefix, pc.cast(indices, pa.string()), ""),
            RECORD_KEY: keys.cast(pa.string()),
            PARTITION_PATH: pa.repeat(pa.scalar(t.partition_path), count),
            FILE_NAME: file_names,
        }

    def _column(self, data: pa.RecordBatch | pa.Table, name: str) -> Any:
        index = data.schema.get_field_index(name)
        if index < 0:
            raise TableFormatError(f"the records have no column {name!r}", where=self._where)
        return data.column(index)

    def _append(self, table: pa.Table) -> None:
        if self._closed:
            raise StorageError("the base file is already closed", where=self._where)
        try:
            table = table.cast(self.schema)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
            raise TableFormatError(
                f"the records do not fit the writer schema: {exc}",
                where=self._where,
                hint="pass records whose columns match the Avro schema's fields",
            ) from exc
        keys = table.column(RECORD_KEY)
        self._track_keys(keys)
        self.num_rows += table.num_rows
        self._buffer += table.to_batches()
        self._buffered_bytes += table.nbytes
        if self._buffered_bytes >= self.settings.row_group_bytes:
            self._flush()

    def _track_keys(self, keys: pa.ChunkedArray) -> None:
        if len(keys) == 0 or not self.settings.populate_meta_fields:
            return
        if keys.null_count:
            raise TableFormatError("a record has no record key", where=self._where)
        self._hashing.append(self._hasher.submit(self._index_keys, keys))

    def _index_keys(self, keys: pa.ChunkedArray) -> None:
        """Add keys to the bloom filter and the key range (on the one hashing thread, in order)."""
        self._bloom.add(keys)
        self._keys.add(keys)

    def _flush(self) -> None:
        if not self._buffer:
            return
        table = pa.Table.from_batches(self._buffer, self.schema)
        self._buffer, self._buffered_bytes = [], 0
        try:
            self._writer.write_table(table, row_group_size=max(1, table.num_rows))
        except (pa.ArrowException, OSError) as exc:
            raise StorageError(f"cannot write {self._where}: {exc}") from exc
        except parquet_gzip.ParquetRewriteError as exc:
            raise self._gzip_failed(exc) from exc
        self._finish_hashing()

    def _finish_hashing(self) -> None:
        """Wait for the bloom filter to have every key written so far (errors surface here)."""
        pending, self._hashing = self._hashing, []
        for future in pending:
            future.result()

    # --- closing ----------------------------------------------------------------------

    def footer_key_values(self) -> dict[str, str]:
        """The footer metadata for the keys written so far, in parquet-avro's order."""
        self._finish_hashing()
        values: dict[str, str] = {}
        if self.settings.populate_meta_fields:
            low, high = self._keys.low, self._keys.high
            if low is not None and high is not None:
                values[MIN_RECORD_KEY] = low
            values[bloom.BLOOM_FILTER_KEY] = self._bloom.build().serialize()
            if high is not None:
                values[MAX_RECORD_KEY] = high
            type_code = self.settings.bloom_filter.type_code
            if type_code != bloom.SIMPLE:  # Hudi records the type code of dynamic filters only
                values[bloom.TYPE_CODE_KEY] = type_code
        values[WRITER_MODEL_KEY] = "avro"
        values[AVRO_SCHEMA_KEY] = self.avro_schema
        return values

    def close(self) -> BaseFileFooter:
        """Write the remaining rows and the footer; returns what a reader will find there."""
        if self._closed:
            raise StorageError("the base file is already closed", where=self._where)
        try:
            self._flush()
            values = self.footer_key_values()
        finally:
            self._hasher.shutdown(wait=True)
        try:
            self._writer.add_key_value_metadata(values)
            if self._gzip_sink is not None:
                self._gzip_sink.begin_footer()
            self._writer.close()
            if self._gzip_sink is not None:
                self._gzip_sink.finish()
            written = self._stream.tell()
            self._stream.close()
            self.bytes_written = written
        except (pa.ArrowException, OSError) as exc:
            raise StorageError(f"cannot finish {self._where}: {exc}") from exc
        except parquet_gzip.ParquetRewriteError as exc:
            raise self._gzip_failed(exc) from exc
        finally:
            self._closed = True
        return _footer(self.target.path, self.num_rows, values, self._where)

    def abort(self) -> None:
        """Stop writing and delete the partial file."""
        if not self._closed:
            self._closed = True
            self._hasher.shutdown(wait=True, cancel_futures=True)
            if self._gzip_sink is not None:
                self._gzip_sink.discard()
            try:
                self._writer.close()
                self._stream.close()
            except (pa.ArrowException, OSError):
                pass  # the file is deleted below whatever state it is in
        self.storage.delete(self.target.path)

    def _gzip_failed(self, error: parquet_gzip.ParquetRewriteError) -> TableFormatError:
        return TableFormatError(
            f"cannot gzip the Parquet pages: {error}",
            where=self._where,
            hint="a pyarrow release that writes Parquet differently; report it with the pyarrow version",
        )

    @property
    def _where(self) -> str:
        return self.storage.uri(self.target.path)


def _footer(path: str, num_rows: int, values: Mapping[str, str], where: str) -> BaseFileFooter:
    text = values.get(bloom.BLOOM_FILTER_KEY) or values.get(bloom.LEGACY_BLOOM_FILTER_KEY)
    filter_ = bloom.parse_bloom_filter(text, values.get(bloom.TYPE_CODE_KEY), where=where) if text else None
    return BaseFileFooter(
        path=path,
        num_rows=num_rows,
        min_record_key=values.get(MIN_RECORD_KEY),
        max_record_key=values.get(MAX_RECORD_KEY),
        avro_schema=values.get(AVRO_SCHEMA_KEY),
        bloom_filter=filter_,
        key_values=dict(values),
    )


def read_footer(storage: Storage, path: str) -> BaseFileFooter:
    """The footer of the base file at ``path`` (relative to the storage root)."""
    where = storage.uri(path)
    try:
        with storage.open_input_file(path) as handle:
            metadata = pq.ParquetFile(handle).metadata
    except (pa.ArrowException, OSError) as exc:
        raise CorruptFileError(f"not a readable Parquet file: {exc}", where=where) from exc
    try:
        values = {k.decode("utf-8"): v.decode("utf-8") for k, v in (metadata.metadata or {}).items()}
    except UnicodeDecodeError as exc:
        raise CorruptFileError(f"footer metadata is not UTF-8: {exc}", where=where) from exc
    return _footer(path, metadata.num_rows, values, where)
