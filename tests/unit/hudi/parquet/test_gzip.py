"""Gzip pages written by the sink: with stock zlib at pyarrow's settings the file is pyarrow's own
gzip file byte for byte; with libdeflate (what base files use) it reads back the same; what the
sink cannot rewrite is refused before a footer is written."""

from __future__ import annotations

import gzip
import io
import random
import threading
import time
import zlib
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.parquet import gzip as pg
from maintainer.hudi.parquet.deflate_threads import DeflateThreads

WRITER_OPTIONS: dict[str, Any] = {
    "version": "1.0",
    "data_page_version": "1.0",
    "use_dictionary": True,
    "write_statistics": True,
    "store_schema": False,
}


def sample_table(rows: int, seed: int = 0) -> pa.Table:
    return pa.table(
        {
            "key": pa.array([f"key-{(i * 7919 + seed) % 100_003:08d}" for i in range(rows)]),
            "ts": pa.array([1_700_000_000_000 + i * 13 for i in range(rows)], pa.int64()),
            "fare": pa.array([None if i % 11 == 0 else i * 0.25 for i in range(rows)], pa.float64()),
            "city": pa.array([f"city_{i % 5}" for i in range(rows)]),
            "tags": pa.array([[f"t{i % 3}"] * (i % 4) for i in range(rows)]),
            "point": pa.array([{"x": i, "y": None if i % 2 else "y"} for i in range(rows)]),
            "flag": pa.array([i % 3 == 0 for i in range(rows)]),
        }
    )


def pyarrow_gzip(table: pa.Table, level: int, row_group_size: int, **options: Any) -> bytes:
    out = io.BytesIO()
    with pq.ParquetWriter(
        out, table.schema, compression="gzip", compression_level=level, **{**WRITER_OPTIONS, **options}
    ) as w:
        w.write_table(table, row_group_size=row_group_size)
        w.add_key_value_metadata({"hoodie_min_record_key": "a"})
    return out.getvalue()


def through_sink(
    table: pa.Table,
    compress: pg.Compressor,
    row_group_size: int,
    threads: DeflateThreads | None = None,
    in_flight: int = 8,
    **options: Any,
) -> bytes:
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, compress, threads, in_flight)
    writer = pq.ParquetWriter(sink, table.schema, compression="none", **{**WRITER_OPTIONS, **options})
    writer.write_table(table, row_group_size=row_group_size)
    writer.add_key_value_metadata({"hoodie_min_record_key": "a"})
    sink.begin_footer()
    writer.close()
    sink.finish()
    return out.getvalue()


@pytest.mark.parametrize(
    ("rows", "row_group_size", "options"),
    [
        (0, 10, {}),
        (1, 10, {}),
        (5_000, 1_000, {}),
        (20_000, 20_000, {"data_page_size": 4096}),
        (20_000, 7_000, {"dictionary_pagesize_limit": 2048, "data_page_size": 8192}),
        (3_000, 3_000, {"write_page_checksum": True}),
        (3_000, 3_000, {"use_dictionary": False}),
    ],
)
@pytest.mark.parametrize("level", [1, 6, 9])
def test_with_stock_zlib_the_file_is_pyarrows_gzip_file(
    rows: int, row_group_size: int, options: dict[str, Any], level: int
) -> None:
    table = sample_table(rows)
    expected = pyarrow_gzip(table, level, row_group_size, **options)
    assert through_sink(table, pg.zlib_compressor(level), row_group_size, **options) == expected


@pytest.mark.parametrize("level", [1, 6, 9])
def test_libdeflate_pages_read_back_the_same_rows(level: int) -> None:
    table = sample_table(30_000)
    data = through_sink(table, pg.page_compressor(level), 10_000, data_page_size=16_384)
    parquet = pq.ParquetFile(io.BytesIO(data))
    assert parquet.read().equals(table)
    assert parquet.metadata.num_row_groups == 3
    codecs = {parquet.metadata.row_group(r).column(c).compression for r in range(3) for c in range(5)}
    assert codecs == {"GZIP"}
    assert parquet.metadata.metadata == {b"hoodie_min_record_key": b"a"}
    # no larger than pyarrow's (stock zlib's) at the same level
    reference = pyarrow_gzip(table, level, 10_000, data_page_size=16_384)
    assert 0.8 * len(reference) < len(data) <= len(reference)


def test_each_page_is_one_gzip_member_any_inflater_reads() -> None:
    payload = bytes(range(256)) * 400
    member = pg.page_compressor(6)(payload)
    assert member[:3] == b"\x1f\x8b\x08"  # gzip, deflate
    assert zlib.decompress(member, pg.GZIP_WBITS) == payload
    assert gzip.decompress(member) == payload


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 5000), min_size=1, max_size=50))
def test_pages_may_arrive_in_any_pieces(pieces: list[int]) -> None:
    """pyarrow's write sizes are its own business: any split of the bytes gives the same file."""
    table = sample_table(2_000, seed=len(pieces))
    plain = io.BytesIO()
    pq.write_table(
        table, plain, compression="none", row_group_size=700, data_page_size=2048, **WRITER_OPTIONS
    )
    data = plain.getvalue()
    footer_at = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, pg.zlib_compressor(6))
    pos, sizes = 0, iter(pieces * (len(data) // sum(pieces) + 1))
    while pos < footer_at:
        end = min(footer_at, pos + next(sizes))
        sink.write(data[pos:end])
        pos = end
    sink.begin_footer()
    sink.write(data[footer_at:])
    sink.finish()
    expected = io.BytesIO()
    pq.write_table(
        table,
        expected,
        compression="gzip",
        compression_level=6,
        row_group_size=700,
        data_page_size=2048,
        **WRITER_OPTIONS,
    )
    assert out.getvalue() == expected.getvalue()


def _attempt(table: pa.Table, **options: Any) -> io.BytesIO:
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, pg.zlib_compressor(6))
    compression = options.pop("compression", "none")
    writer = pq.ParquetWriter(sink, table.schema, compression=compression, **{**WRITER_OPTIONS, **options})
    writer.write_table(table)
    sink.begin_footer()
    writer.close()
    sink.finish()
    return out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"compression": "snappy"}, "compressed already"),
        ({"data_page_version": "2.0"}, "type 3"),
        ({"write_page_index": True}, "page index"),
    ],
)
def test_what_it_cannot_rewrite_is_refused_before_the_footer(options: dict[str, Any], message: str) -> None:
    with pytest.raises(pg.ParquetRewriteError, match=message):
        out = _attempt(sample_table(100), **options)
        pytest.fail(f"wrote {len(out.getvalue())} bytes")


def test_the_footer_comes_after_begin_footer_only() -> None:
    sink = pg.GzipPagesSink(io.BytesIO(), pg.zlib_compressor(6))
    with pytest.raises(pg.ParquetRewriteError, match="before begin_footer"):
        sink.finish()
    sink.write(b"PAR1\x15")  # the start of a page header
    with pytest.raises(pg.ParquetRewriteError, match="unfinished page"):
        sink.begin_footer()


def test_output_that_is_not_parquet_is_refused() -> None:
    sink = pg.GzipPagesSink(io.BytesIO(), pg.zlib_compressor(6))
    with pytest.raises(pg.ParquetRewriteError, match="PAR1"):
        sink.write(b"ORC\x00more")


def test_a_discarded_sink_passes_nothing_on() -> None:
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, pg.zlib_compressor(6))
    sink.write(b"PAR1")
    sink.discard()
    sink.write(b"anything at all")
    assert out.getvalue() == b"PAR1"


def _jittery(compress: pg.Compressor, seed: int) -> pg.Compressor:
    """``compress``, each call held back a random few milliseconds: pages finish out of order."""
    lock, draws = threading.Lock(), random.Random(seed)

    def slow(data: bytes | bytearray | memoryview) -> bytes | bytearray:
        with lock:
            pause = draws.random() * 0.004
        time.sleep(pause)
        return compress(data)

    return slow


@pytest.mark.parametrize("in_flight", [1, 3, 8])
@pytest.mark.parametrize("compressor", [pg.zlib_compressor(6), pg.page_compressor(6)])
def test_pages_deflated_on_idle_cores_make_the_same_file(compressor: pg.Compressor, in_flight: int) -> None:
    """Pages deflated by threads, finishing out of order."""
    table = sample_table(20_000, seed=in_flight)
    options: dict[str, Any] = {"data_page_size": 4096, "dictionary_pagesize_limit": 2048}
    expected = through_sink(table, compressor, 7_000, **options)
    threads = DeflateThreads(cores=4)
    pooled = through_sink(table, _jittery(compressor, in_flight), 7_000, threads, in_flight, **options)
    assert pooled == expected
    assert pq.ParquetFile(io.BytesIO(pooled)).read().equals(table)
    assert threads.writers == 0


def _deflating_threads(threads: DeflateThreads, writers: int) -> set[str]:
    """The names of the threads that deflated the pages of ``writers`` sinks writing at once."""
    names: set[str] = set()
    all_writing, all_written = threading.Barrier(writers), threading.Barrier(writers)

    def compress(data: bytes | bytearray | memoryview) -> bytes:
        names.add(threading.current_thread().name)
        time.sleep(0.001)
        return zlib.compress(bytes(data))

    def write(seed: int) -> None:
        sink = pg.GzipPagesSink(io.BytesIO(), compress, threads)
        all_writing.wait()  # every sink holds its core before the first page
        writer = pq.ParquetWriter(
            sink, pa.schema([("v", pa.int64())]), compression="none", data_page_size=1024
        )
        writer.write_table(pa.table({"v": list(range(seed, seed + 20_000))}))
        all_written.wait()  # (a sink that is done gives its core to the others' pages)
        sink.begin_footer()
        writer.close()
        sink.finish()

    workers = [threading.Thread(target=write, args=(n,), name=f"writer-{n}") for n in range(writers)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return names


def test_pages_go_to_deflate_threads_only_while_a_core_is_idle() -> None:
    threads = DeflateThreads(cores=2)
    alone = _deflating_threads(threads, writers=1)
    assert alone and all(name.startswith("maintainer-deflate") for name in alone)
    assert threads.writers == 0
    together = _deflating_threads(threads, writers=2)
    assert together == {"writer-0", "writer-1"}  # every core has its writer: no handing over
    assert threads.writers == 0


def test_a_pooled_sink_keeps_at_most_its_pages_in_flight() -> None:
    most = [0]

    def slow(data: bytes | bytearray | memoryview) -> bytes:
        time.sleep(0.002)  # slower than pyarrow makes the next page: the queue fills
        return zlib.compress(bytes(data))

    class Watched(pg.GzipPagesSink):
        def _write_deflated(self, wait: bool = False, every: bool = False) -> None:
            most[0] = max(most[0], len(self._in_flight))
            super()._write_deflated(wait, every)

    sink = Watched(io.BytesIO(), slow, DeflateThreads(cores=8), in_flight=2)
    writer = pq.ParquetWriter(sink, pa.schema([("v", pa.int64())]), compression="none", data_page_size=1024)
    writer.write_table(pa.table({"v": list(range(50_000))}), row_group_size=50_000)
    sink.begin_footer()
    writer.close()
    sink.finish()
    assert most[0] == 3  # the page just handed over, and two before it


def test_a_page_that_fails_to_deflate_fails_the_write() -> None:
    def broken(data: bytes | bytearray | memoryview) -> bytes:
        raise OSError("deflate failed")

    threads = DeflateThreads(cores=4)
    with pytest.raises(OSError, match="deflate failed"):
        through_sink(sample_table(3_000), broken, 3_000, threads, 1)


def test_a_discarded_or_dropped_sink_gives_its_core_back() -> None:
    release = threading.Event()

    def held(data: bytes | bytearray | memoryview) -> bytes:
        if threading.current_thread() is not threading.main_thread():
            release.wait(5)
        return zlib.compress(bytes(data))

    threads = DeflateThreads(cores=2)
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, held, threads, in_flight=100)
    writer = pq.ParquetWriter(sink, pa.schema([("v", pa.int64())]), compression="none", data_page_size=1024)
    writer.write_table(pa.table({"v": list(range(20_000))}))
    assert threads.writers == 1
    sink.discard()
    release.set()
    writer.close()
    assert out.getvalue() == b"PAR1"
    assert threads.writers == 0
    dropped = pg.GzipPagesSink(io.BytesIO(), held, threads)
    assert threads.writers == 1
    del dropped
    assert threads.writers == 0


def test_a_sink_whose_idle_core_is_taken_mid_file_still_writes_its_pages_in_order() -> None:
    """Pages handed to threads, then (another writer started) deflated in place behind them."""
    table = sample_table(6_000, seed=3)
    plain = io.BytesIO()
    pq.write_table(
        table, plain, compression="none", row_group_size=2_000, data_page_size=1024, **WRITER_OPTIONS
    )
    data = plain.getvalue()
    footer_at = len(data) - 8 - int.from_bytes(data[-8:-4], "little")

    def feed(sink: pg.GzipPagesSink, start: int, end: int) -> None:
        for at in range(start, end, 500):
            sink.write(data[at : min(at + 500, end)])

    in_place = io.BytesIO()
    reference = pg.GzipPagesSink(in_place, pg.zlib_compressor(6))
    feed(reference, 0, footer_at)
    reference.begin_footer()
    reference.write(data[footer_at:])
    reference.finish()

    threads = DeflateThreads(cores=2)
    out = io.BytesIO()
    sink = pg.GzipPagesSink(out, _jittery(pg.zlib_compressor(6), 5), threads, in_flight=50)
    feed(sink, 0, footer_at // 2)
    assert sink._in_flight  # pages still deflating on threads
    threads.writer_started()  # another writer takes the idle core
    feed(sink, footer_at // 2, footer_at)
    sink.begin_footer()
    sink.write(data[footer_at:])
    sink.finish()
    threads.writer_finished()
    assert out.getvalue() == in_place.getvalue()
