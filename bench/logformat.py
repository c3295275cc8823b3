"""Benchmark: decoding an Avro data block of many small records.

Writes one AVRO_DATA block of ``--records`` trip-like records (5 Hudi meta columns + 6 data
columns, ~200 bytes each) with this package's writer, then measures, best of ``--repeat``:

(a) the floor: fastavro's ``schemaless_reader`` over the records alone (lengths pre-split,
    schema pre-parsed), i.e. the cost of the Avro library itself;
(b) ``read_log_blocks`` + ``block_records`` (frame parsing, checks, records as dicts);
(c) ``read_log_blocks`` + ``block_table(use_polars=False)`` (fastavro records -> pyarrow Table);
(d) ``read_log_blocks`` + ``block_table`` through polars' Avro reader (only if polars is installed);
(e) writing the block with ``avro_data_block``;

and prints records/s for each and the ratios to the floor.
Run: ``.venv/bin/python bench/logformat.py [--records 200000]``.
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import time
from collections.abc import Callable
from typing import Any

import fastavro

from maintainer.hudi.logformat import avro_data_block, block_records, block_table, read_log_blocks
from maintainer.hudi.logformat.avro_block import parsed_schema
from maintainer.hudi.logformat.fast_table import polars_available

FIELDS = [
    ("_hoodie_commit_time", "string"),
    ("_hoodie_commit_seqno", "string"),
    ("_hoodie_record_key", "string"),
    ("_hoodie_partition_path", "string"),
    ("_hoodie_file_name", "string"),
    ("ts", "long"),
    ("uuid", "string"),
    ("rider", "string"),
    ("driver", "string"),
    ("fare", "double"),
    ("city", "string"),
]
SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "trips_record",
        "namespace": "hoodie.trips",
        "fields": [{"name": n, "type": ["null", t], "default": None} for n, t in FIELDS],
    }
)
INSTANT = "20250101000000000"


def sample_records(count: int) -> list[dict[str, Any]]:
    return [
        {
            "_hoodie_commit_time": INSTANT,
            "_hoodie_commit_seqno": f"{INSTANT}_0_{i}",
            "_hoodie_record_key": f"key-{i:09d}",
            "_hoodie_partition_path": "city=san_francisco",
            "_hoodie_file_name": "d0304c53-6fd2-4b7a-a9d6-5ff632f79224-0",
            "ts": 1695046462179 + i,
            "uuid": f"9909a8b1-2d15-4d3d-8ec9-{i:012d}",
            "rider": f"rider-{i % 26}",
            "driver": f"driver-{i % 13}",
            "fare": i * 0.25,
            "city": "san_francisco",
        }
        for i in range(count)
    ]


def best_of(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def floor_decode(datums: list[bytes]) -> list[Any]:
    schema = parsed_schema(SCHEMA)
    return [fastavro.schemaless_reader(io.BytesIO(datum), schema, None) for datum in datums]


def split_datums(block_bytes: bytes) -> list[bytes]:
    (block,) = read_log_blocks(block_bytes, "bench")
    content, pos, datums = block.content, 8, []
    for _ in range(struct.unpack_from(">i", content, 4)[0]):
        length = struct.unpack_from(">i", content, pos)[0]
        datums.append(content[pos + 4 : pos + 4 + length])
        pos += 4 + length
    return datums


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    records = sample_records(args.records)
    raw = avro_data_block(records, SCHEMA, INSTANT)
    datums = split_datums(raw)
    results = {
        "(a) floor: fastavro schemaless_reader": best_of(args.repeat, lambda: floor_decode(datums)),
        "(b) read_log_blocks + block_records": best_of(
            args.repeat, lambda: block_records(read_log_blocks(raw, "bench")[0])
        ),
        "(c) block_table, fastavro path": best_of(
            args.repeat, lambda: block_table(read_log_blocks(raw, "bench")[0], use_polars=False)
        ),
        "(e) avro_data_block (write)": best_of(
            args.repeat, lambda: avro_data_block(records, SCHEMA, INSTANT)
        ),
    }
    if polars_available():
        results["(d) block_table, polars path"] = best_of(
            args.repeat, lambda: block_table(read_log_blocks(raw, "bench")[0])
        )
    floor = results["(a) floor: fastavro schemaless_reader"]
    print(f"{args.records} records, block of {len(raw) / 1e6:.1f} MB")
    for label, seconds in sorted(results.items()):
        rate = args.records / seconds
        print(f"{label:42s} {seconds:7.3f} s  {rate:12,.0f} records/s  ratio to floor {seconds / floor:5.2f}")


if __name__ == "__main__":
    main()
