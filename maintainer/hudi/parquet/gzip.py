"""Gzip a Parquet file's pages on the way to storage, with a faster deflate than pyarrow's.

pyarrow compresses gzip pages with stock zlib, which makes gzip (Hudi's default codec) the most
expensive part of writing a base file. Here pyarrow writes the file uncompressed into a
:class:`GzipPagesSink`, which passes it on page by page, each page's bytes gzip-compressed by
``compress``: by default libdeflate at the same level, the same format in under a third of
zlib's time at Hudi's level 6, its pages 5-7% smaller than zlib's at each level 1-9 on the
tables measured (see :func:`page_compressor`). The footer is rewritten for the moved pages:
codec GZIP, each column chunk's page offsets and sizes, each row group's offset and sizes. Page
boundaries are the ones pyarrow picks with gzip itself (its page size limit counts uncompressed
bytes), so with stock zlib at pyarrow's settings the output is pyarrow's gzip file byte for
byte (the tests check this).

The sink reads only what pyarrow's writer produces with the base file writer's settings: v1
data pages and dictionary pages, no page index, no Parquet bloom filter, no encryption. Anything
else is refused with :class:`ParquetRewriteError` before the footer is written, so a file it
cannot rewrite is never finished.
"""

from __future__ import annotations

import bisect
import functools
import io
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.hudi.parquet import thrift_compact as tc
from maintainer.hudi.parquet.deflate_threads import DeflateThreads

MAGIC = b"PAR1"
GZIP_WBITS = 31
"""zlib's window bits for a gzip stream (15, plus 16 for the gzip wrapper), as Parquet's GZIP is."""

# PageHeader
_PAGE_TYPE, _UNCOMPRESSED_SIZE, _COMPRESSED_SIZE, _CRC = 1, 2, 3, 4
_DATA_PAGE, _DICTIONARY_PAGE = 0, 2
# FileMetaData, RowGroup, ColumnChunk, ColumnMetaData
_ROW_GROUPS = 4
_RG_COLUMNS, _RG_TOTAL_BYTE_SIZE, _RG_FILE_OFFSET, _RG_TOTAL_COMPRESSED = 1, 2, 5, 6
_CC_FILE_OFFSET, _CC_META, _CC_OFFSET_INDEX, _CC_COLUMN_INDEX, _CC_CRYPTO = 2, 3, 4, 6, 8
_CM_CODEC, _CM_UNCOMPRESSED, _CM_COMPRESSED = 4, 6, 7
_CM_DATA_PAGE, _CM_INDEX_PAGE, _CM_DICTIONARY_PAGE, _CM_BLOOM_FILTER = 9, 10, 11, 14
_UNCOMPRESSED_CODEC, _GZIP_CODEC = 0, 2


class ParquetRewriteError(ValueError):
    """The Parquet bytes are not what this sink rewrites (see the module)."""


Compressor = Callable[[bytes | bytearray | memoryview], bytes | bytearray]
"""A page's bytes -> one gzip stream of them."""


class _Output(Protocol):
    def write(self, data: Any) -> Any: ...


def libdeflate_compressor(level: int) -> Compressor:
    """Gzip streams by libdeflate at ``level`` (1 fastest, 9 smallest, as zlib's; it releases
    the GIL while it compresses)."""
    import deflate

    def compress(data: bytes | bytearray | memoryview) -> bytes | bytearray:
        return deflate.gzip_compress(data, level)

    return compress


def page_compressor(level: int) -> Compressor:
    """The compressor base files' gzip pages are written with: libdeflate at ``level``.

    Measured on a compaction's pages (bench/README.md): at level 6 zlib takes 1.01 s, zlib-ng
    0.32 s and libdeflate 0.30 s, and libdeflate's pages are 7% smaller; at level 1 zlib-ng's are
    37% larger than zlib's, libdeflate's 4% smaller."""
    return libdeflate_compressor(level)


@functools.cache
def sink_supported() -> bool:
    """Whether this process's pyarrow and libdeflate write gzip pages through the sink correctly.

    Checked once, on a small table of every kind of column base files hold, written through the
    sink and read back; base files are gzipped by pyarrow itself when it fails (a pyarrow release
    that writes its files differently, libdeflate missing), rather than left unwritable.
    """
    table = pa.table(
        {
            "key": pa.array([f"k{i % 7}" for i in range(300)]),
            "value": pa.array([None if i % 5 == 0 else i * 0.5 for i in range(300)]),
            "tags": pa.array([[str(i)] * (i % 3) for i in range(300)]),
            "nested": pa.array([{"a": i, "b": None} for i in range(300)]),
        }
    )
    out = io.BytesIO()
    try:
        sink = GzipPagesSink(out, page_compressor(6))
        writer = pq.ParquetWriter(sink, table.schema, compression="none", version="1.0", data_page_size=512)
        writer.write_table(table, row_group_size=128)
        sink.begin_footer()
        writer.close()
        sink.finish()
        written = pq.ParquetFile(io.BytesIO(out.getvalue()))
        codecs = {
            written.metadata.row_group(0).column(c).compression for c in range(written.metadata.num_columns)
        }
        return codecs == {"GZIP"} and written.read().equals(table)
    except (ParquetRewriteError, pa.ArrowException, ImportError, OSError, ValueError):
        return False


def zlib_compressor(level: int, mem_level: int = 8) -> Compressor:
    """Gzip streams by the interpreter's zlib, for comparison with pyarrow's own gzip pages."""

    def compress(data: bytes | bytearray | memoryview) -> bytes:
        deflater = zlib.compressobj(level, zlib.DEFLATED, GZIP_WBITS, mem_level)
        return deflater.compress(data) + deflater.flush()

    return compress


@dataclass(frozen=True, slots=True)
class _PageInFlight:
    """A page waiting its turn to be written (deflated on a thread, or in place behind pages that
    are): where it started, its header, its size, its deflated bytes."""

    old_start: int
    header: tc.Struct
    size: int
    compressed: Future[bytes | bytearray]


class GzipPagesSink:
    """A writable file for pyarrow's Parquet writer, set to write without compression.

    Call :meth:`begin_footer` once every row group is written (before closing the writer: the
    bytes that come after it are the footer), and :meth:`finish` after closing the writer; the
    output then holds the whole file. The sink never closes ``out``.

    With ``threads``, the sink holds one of their cores while it writes, and pages go to a
    deflate thread while a core is idle (see :mod:`.deflate_threads`), at most ``in_flight``
    pages at a time (pyarrow's are about 1 MB); they are written out in their order, so the file
    is byte for byte the one written without threads.
    """

    def __init__(
        self, out: _Output, compress: Compressor, threads: DeflateThreads | None = None, in_flight: int = 8
    ) -> None:
        self._out = out
        self._compress = compress
        self._threads = threads
        if threads is not None:
            threads.writer_started()
        self._in_flight: deque[_PageInFlight] = deque()
        self._max_in_flight = max(1, in_flight)
        self._pending = bytearray()
        self._pending_at = 0  # offset in the uncompressed file of _pending[0]
        self._written = 0
        self._old_starts: list[int] = []  # page starts in the uncompressed file, ascending
        self._new_starts: list[int] = []
        self._uncompressed_before: list[int] = []  # new header + page bytes before each page
        self._uncompressed_total = 0
        self._in_footer = False
        self._discarding = False
        self.closed = False

    # --- the file object pyarrow writes into ----------------------------------------------

    def write(self, data: Any) -> int:
        chunk = memoryview(data).cast("B")
        if self._discarding:
            return len(chunk)
        self._pending += chunk
        if not self._in_footer:
            self._pass_pages()
        return len(chunk)

    def discard(self) -> None:
        """Pass nothing more on (the file is being abandoned: what pyarrow still writes is dropped)."""
        self._discarding = True
        self._pending.clear()
        while self._in_flight:
            self._in_flight.popleft().compressed.cancel()
        self._stop_holding_core()

    def _stop_holding_core(self) -> None:
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.writer_finished()

    def __del__(self) -> None:  # a sink dropped unfinished (an error while writing)
        if getattr(self, "_threads", None) is not None:
            self._stop_holding_core()

    def tell(self) -> int:
        return self._pending_at + len(self._pending)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    # --- pages ------------------------------------------------------------------------

    def _emit(self, data: bytes | bytearray | memoryview) -> None:
        self._out.write(data)
        self._written += len(data)

    def _pass_pages(self) -> None:
        pos = 0
        if self._pending_at == 0 and self._written == 0:
            if len(self._pending) < len(MAGIC):
                return
            if bytes(self._pending[:4]) != MAGIC:
                raise ParquetRewriteError("the Parquet output does not start with PAR1")
            self._emit(MAGIC)
            pos = len(MAGIC)
        while True:
            try:
                header, body_at = tc.read_struct(self._pending, pos)
            except tc.Truncated:
                break
            except tc.ThriftError as exc:
                raise ParquetRewriteError(f"a page header at {self._pending_at + pos}: {exc}") from exc
            size = _int_field(header, _COMPRESSED_SIZE, "page header")
            if body_at + size > len(self._pending):
                break
            self._pass_page(self._pending_at + pos, header, self._pending[body_at : body_at + size])
            pos = body_at + size
        del self._pending[:pos]
        self._pending_at += pos

    def _pass_page(self, old_start: int, header: tc.Struct, body: bytearray) -> None:
        page_type = header.get(_PAGE_TYPE)
        if page_type not in (_DATA_PAGE, _DICTIONARY_PAGE):
            raise ParquetRewriteError(
                f"a page of type {page_type!r} at {old_start} (only v1 data and dictionary pages)"
            )
        if _int_field(header, _UNCOMPRESSED_SIZE, "page header") != len(body):
            raise ParquetRewriteError(f"the page at {old_start} is compressed already")
        # (the body is a copy cut from the pending bytes: it may outlive them)
        threads = self._threads
        compressed = threads.submit_if_idle(self._compress, body) if threads is not None else None
        if compressed is None:
            if not self._in_flight:
                self._write_page(old_start, header, len(body), self._compress(body))
                return
            compressed = Future()
            compressed.set_result(self._compress(body))
        self._in_flight.append(_PageInFlight(old_start, header, len(body), compressed))
        self._write_deflated(wait=len(self._in_flight) > self._max_in_flight)

    def _write_deflated(self, wait: bool = False, every: bool = False) -> None:
        """Write out the pages at the head of the queue that are deflated (waiting for the first
        one with ``wait``, for all with ``every``)."""
        queue = self._in_flight
        while queue and (every or wait or queue[0].compressed.done()):
            page = queue.popleft()
            self._write_page(page.old_start, page.header, page.size, page.compressed.result())
            wait = False

    def _write_page(
        self, old_start: int, header: tc.Struct, size: int, compressed: bytes | bytearray
    ) -> None:
        header.set(_COMPRESSED_SIZE, tc.I32, len(compressed))
        if header.get(_CRC) is not None:
            header.set(_CRC, tc.I32, _signed32(zlib.crc32(compressed)))
        new_header = tc.write_struct(header)
        self._mark_page_start(old_start)
        self._uncompressed_total += len(new_header) + size
        self._emit(new_header)
        self._emit(compressed)

    # --- the footer -------------------------------------------------------------------

    def begin_footer(self) -> None:
        """Every page has been written: what comes next is the footer."""
        if self._pending:
            raise ParquetRewriteError(f"{len(self._pending)} bytes of an unfinished page before the footer")
        self._write_deflated(every=True)
        self._stop_holding_core()
        self._mark_page_start(self._pending_at)  # the end of the last page
        self._in_footer = True

    def _mark_page_start(self, old_start: int) -> None:
        self._old_starts.append(old_start)
        self._new_starts.append(self._written)
        self._uncompressed_before.append(self._uncompressed_total)

    def finish(self) -> None:
        """Rewrite the footer pyarrow wrote for the moved pages and write it out."""
        if not self._in_footer:
            raise ParquetRewriteError("finish() before begin_footer()")
        data = bytes(self._pending)
        if len(data) < 8 or data[-4:] != MAGIC:
            raise ParquetRewriteError("the Parquet output does not end with a footer")
        length = int.from_bytes(data[-8:-4], "little")
        if length != len(data) - 8:
            raise ParquetRewriteError(
                f"the footer is {length} bytes but {len(data) - 8} bytes follow the pages "
                "(a page index or bloom filter, which this sink does not move)"
            )
        try:
            metadata, end = tc.read_struct(data, 0)
        except tc.ThriftError as exc:
            raise ParquetRewriteError(f"the footer: {exc}") from exc
        if end != length:
            raise ParquetRewriteError("the footer holds bytes after its metadata")
        row_groups = metadata.get(_ROW_GROUPS)
        if isinstance(row_groups, tc.TList):
            for row_group in row_groups.items:
                self._move_row_group(_struct(row_group, "row group"))
        footer = tc.write_struct(metadata)
        self._emit(footer)
        self._emit(len(footer).to_bytes(4, "little"))
        self._emit(MAGIC)
        self._pending.clear()

    def _new_offset(self, old: int, what: str) -> int:
        index = bisect.bisect_left(self._old_starts, old)
        if index == len(self._old_starts) or self._old_starts[index] != old:
            raise ParquetRewriteError(f"{what} {old} is not the start of a page")
        return self._new_starts[index]

    def _uncompressed_at(self, old: int) -> int:
        return self._uncompressed_before[bisect.bisect_left(self._old_starts, old)]

    def _move_row_group(self, row_group: tc.Struct) -> None:
        columns = row_group.get(_RG_COLUMNS)
        if not isinstance(columns, tc.TList):
            raise ParquetRewriteError("a row group without columns")
        old_first = None
        compressed_total = uncompressed_total = 0
        for item in columns.items:
            chunk = _struct(item, "column chunk")
            for unsupported in (_CC_OFFSET_INDEX, _CC_COLUMN_INDEX, _CC_CRYPTO):
                if chunk.get(unsupported) is not None:
                    raise ParquetRewriteError("a column chunk with a page index or encryption")
            meta = _struct(chunk.get(_CC_META), "column metadata")
            start, compressed, uncompressed = self._move_column(meta)
            old_first = start if old_first is None else old_first
            compressed_total += compressed
            uncompressed_total += uncompressed
            file_offset = chunk.get(_CC_FILE_OFFSET)
            if isinstance(file_offset, int) and file_offset:
                chunk.set(
                    _CC_FILE_OFFSET, tc.I64, self._new_offset(file_offset, "a column chunk's file offset")
                )
        if row_group.get(_RG_TOTAL_COMPRESSED) is not None:
            row_group.set(_RG_TOTAL_COMPRESSED, tc.I64, compressed_total)
        if row_group.get(_RG_FILE_OFFSET) is not None and old_first is not None:
            row_group.set(_RG_FILE_OFFSET, tc.I64, self._new_offset(old_first, "a row group's offset"))
        if (
            row_group.get(_RG_TOTAL_BYTE_SIZE) is not None
        ):  # the chunks' uncompressed totals, headers included
            row_group.set(_RG_TOTAL_BYTE_SIZE, tc.I64, uncompressed_total)

    def _move_column(self, meta: tc.Struct) -> tuple[int, int, int]:
        """Move one column chunk's offsets; returns its old start, new compressed and
        uncompressed totals."""
        if meta.get(_CM_CODEC) != _UNCOMPRESSED_CODEC:
            raise ParquetRewriteError("a column chunk written compressed")
        if meta.get(_CM_BLOOM_FILTER) is not None or meta.get(_CM_INDEX_PAGE) is not None:
            raise ParquetRewriteError("a column chunk with a Parquet bloom filter or index page")
        data_page = _int_field(meta, _CM_DATA_PAGE, "column metadata")
        dictionary = meta.get(_CM_DICTIONARY_PAGE)
        start = dictionary if isinstance(dictionary, int) and dictionary > 0 else data_page
        old_end = start + _int_field(meta, _CM_COMPRESSED, "column metadata")
        new_start, new_end = (
            self._new_offset(start, "a column chunk"),
            self._new_offset(old_end, "a column chunk's end"),
        )
        uncompressed = self._uncompressed_at(old_end) - self._uncompressed_at(start)
        meta.set(_CM_CODEC, tc.I32, _GZIP_CODEC)
        meta.set(_CM_UNCOMPRESSED, tc.I64, uncompressed)
        meta.set(_CM_COMPRESSED, tc.I64, new_end - new_start)
        if data_page:  # 0 in a chunk without data pages (an empty row group's)
            meta.set(_CM_DATA_PAGE, tc.I64, self._new_offset(data_page, "a data page offset"))
        if isinstance(dictionary, int) and dictionary > 0:
            meta.set(_CM_DICTIONARY_PAGE, tc.I64, new_start)
        return start, new_end - new_start, uncompressed


def _struct(value: object, what: str) -> tc.Struct:
    if not isinstance(value, tc.Struct):
        raise ParquetRewriteError(f"a {what} that is not a struct")
    return value


def _int_field(value: tc.Struct, field_id: int, what: str) -> int:
    found = value.get(field_id)
    if not isinstance(found, int) or isinstance(found, bool):
        raise ParquetRewriteError(f"a {what} without field {field_id}")
    return found


def _signed32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value
