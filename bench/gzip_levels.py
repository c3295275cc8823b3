"""Benchmark: libdeflate's levels against zlib's, on the pages of base files of several kinds of data.

Hudi writes gzip pages with Hadoop's zlib at level 6; maintainer deflates them with libdeflate at
the level the user set (6 by default). This measures what another mapping would give: for each
data set (Hudi-shaped trip rows with meta columns, numbers, source text, JSON strings, random
hex ids, nested lists and structs), the pages pyarrow makes of it (the sink's own page
boundaries, uncompressed) are deflated by zlib at ``--zlib-level`` (the floor) and by libdeflate
at each level; it prints each level's size and CPU time as ratios of zlib's, and the cheapest
libdeflate level whose pages are no larger than zlib's on every data set.

    .venv/bin/python bench/gzip_levels.py [--rows 400000] [--zlib-level 6]
"""

from __future__ import annotations

import argparse
import io
import json
import time
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.hudi.parquet import gzip as parquet_gzip
from maintainer.hudi.parquet.gzip import Compressor, GzipPagesSink

LIBDEFLATE_LEVELS = range(1, 10)


def pages_of(table: pa.Table) -> list[bytes]:
    """The uncompressed pages the base file sink would deflate for ``table``."""
    pages: list[bytes] = []

    def record(data: bytes | bytearray | memoryview) -> bytes:
        pages.append(bytes(data))
        return zlib.compress(b"")

    sink = GzipPagesSink(io.BytesIO(), record)
    writer = pq.ParquetWriter(sink, table.schema, compression="none", version="1.0")
    writer.write_table(table, row_group_size=table.num_rows or 1)
    sink.begin_footer()
    writer.close()
    sink.finish()
    return pages


def source_lines(rows: int) -> list[str]:
    """Non-empty lines of the standard library's Python sources, repeated up to ``rows``."""
    lines: list[str] = []
    standard_library = Path(json.__file__).parent.parent
    for module in sorted(standard_library.glob("*.py"))[:300]:
        lines += [line for line in module.read_text(errors="replace").splitlines() if line.strip()]
    return (lines * (rows // max(1, len(lines)) + 1))[:rows]


def data_sets(rows: int) -> dict[str, pa.Table]:
    rng = np.random.default_rng(7)
    ids = np.arange(rows)
    instants = np.array(["20261101123456789", "20261102123456789", "20261103123456789"])
    return {
        "trips": pa.table(
            {
                "_hoodie_commit_time": pa.array(instants[ids * 3 // max(rows, 1)]),
                "_hoodie_commit_seqno": pa.array([f"20261101123456789_{i % 20}_{i}" for i in ids]),
                "_hoodie_record_key": pa.array(
                    [f"{i * 2654435761 % 10**10:010d}-{i * 40503 % 10**10:010d}" for i in ids]
                ),
                "ts": pa.array(ids + 1_700_000_000_000),
                "rider": pa.array([f"rider-{x:03d}" for x in rng.integers(0, 1000, rows)]),
                "fare": pa.array(np.round(rng.uniform(5, 100, rows), 2)),
                "city": pa.array(np.array(["sf", "nyc", "chennai", "sao_paulo"])[rng.integers(0, 4, rows)]),
            }
        ),
        "numbers": pa.table(
            {
                "random_long": pa.array(rng.integers(0, 2**62, rows)),
                "small_int": pa.array(rng.integers(0, 100_000, rows).astype(np.int32)),
                "sorted_time": pa.array(np.cumsum(rng.integers(0, 1000, rows))),
                "gaussian": pa.array(rng.normal(0, 1, rows)),
                "price": pa.array(np.round(rng.lognormal(3, 1, rows), 2)),
            }
        ),
        "text": pa.table({"line": pa.array(source_lines(rows))}),
        "json": pa.table(
            {
                "payload": pa.array(
                    [
                        json.dumps(
                            {
                                "id": int(i),
                                "name": f"user{i % 5000}",
                                "score": float(s),
                                "tags": ["a", "b"][: i % 3],
                            }
                        )
                        for i, s in zip(ids, np.round(rng.normal(50, 10, rows), 3), strict=True)
                    ]
                )
            }
        ),
        "hex ids": pa.table({"id": pa.array([rng.bytes(16).hex() for _ in range(rows)])}),
        "nested": pa.table(
            {
                "values": pa.array([rng.integers(0, 50, i % 6).tolist() for i in range(rows // 4)]),
                "point": pa.array([{"a": i % 97, "b": f"v{i % 13}"} for i in range(rows // 4)]),
            }
        ),
    }


def deflated(pages: list[bytes], compress: Compressor) -> tuple[int, float]:
    """Total deflated bytes and CPU seconds (best of 3)."""
    size, best = 0, float("inf")
    for _ in range(3):
        started = time.process_time()
        size = sum(len(compress(page)) for page in pages)
        best = min(best, time.process_time() - started)
    return size, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--zlib-level", type=int, default=6, choices=range(1, 10))
    args = parser.parse_args()
    header = " ".join(f"   ld{level} size  cpu" for level in LIBDEFLATE_LEVELS)
    print(f"ratios to zlib level {args.zlib_level} (size, CPU); pages of {args.rows:,} rows per data set")
    print(f"{'data':8} {'pages MB':>8} {'zlib MB':>8} {'zlib s':>6} {header}")
    no_larger = set(LIBDEFLATE_LEVELS)
    for name, table in data_sets(args.rows).items():
        pages = pages_of(table)
        floor_size, floor_cpu = deflated(pages, parquet_gzip.zlib_compressor(args.zlib_level))
        cells = []
        for level in LIBDEFLATE_LEVELS:
            size, cpu = deflated(pages, parquet_gzip.libdeflate_compressor(level))
            cells.append(f"{size / floor_size:9.3f} {cpu / floor_cpu:4.2f}")
            if size > floor_size:
                no_larger.discard(level)
        raw = sum(map(len, pages))
        print(
            f"{name:8} {raw / 1e6:8.1f} {floor_size / 1e6:8.2f} {floor_cpu:6.2f} {' '.join(cells)}",
            flush=True,
        )
    cheapest = min(no_larger) if no_larger else None
    print(f"cheapest libdeflate level no larger than zlib {args.zlib_level} on every data set: {cheapest}")


if __name__ == "__main__":
    main()
