"""The ``column_stats`` records a compaction's ``partition_stats`` need, read by key prefix
through each HFile's index against reading the whole partition.

A fixture table's metadata table (Hudi 1.1's, ``sample_table_mor_avro_v9_txns_simple_meta``)
gets ``--partitions`` more data partitions of ``--files`` files each in its ``column_stats``
base HFiles: every indexed column of every file gets a record (a copy of a real record with the
file's name), written back with the table's HFile writer style and 1 MiB blocks. Then, best of
``--repeat``, on a freshly opened metadata table:

(a) ``read_partition("column_stats")``: every record decoded (what the compaction's sync did);
(b) ``read_prefixes("column_stats", ...)``: the records of the compacted partitions (one column
    id + partition id prefix per indexed column), as the sync now reads them;

and prints both, their ratio, and checks that (b) is (a) restricted to the prefixes. Needs the
fixtures (``MAINTAINER_HUDI_FIXTURES`` or ``../shared/fixtures/hudi-rs``).

    .venv/bin/python bench/column_stats_lookup.py [--partitions 2000] [--files 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maintainer.hudi.hfile import HFileCell, read_hfile, write_hfile
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.keys import column_stats_key
from maintainer.hudi.metadata.records import parsed_schema
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates import partition_stats_prefixes
from maintainer.hudi.metadata.updates.indexes import COLUMN_STATS
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import unpack

FIXTURE = "sample_table_mor_avro_v9_txns_simple_meta"


def open_mdt(path: Path) -> MetadataTable:
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    return mdt


def grow_column_stats(path: Path, partitions: int, files: int) -> tuple[list[str], list[str], int]:
    """Add the records; returns (indexed columns, the table's real partitions, records now)."""
    mdt = open_mdt(path)
    records = mdt.read_partition(COLUMN_STATS)
    template: dict[str, dict[str, Any]] = {}
    for record in records.values():
        stats = record["ColumnStatsMetadata"]
        template.setdefault(stats["columnName"], record)
    columns = sorted(template)
    real = sorted(metadata_file_listing(mdt))
    bases = [s.base_file for g in mdt.file_groups(COLUMN_STATS) for s in g.slices if s.base_file is not None]
    added = 0
    for number, base in enumerate(bases):
        data = mdt.storage.read_bytes(base.path)
        hfile = read_hfile(data, base.path)
        schema = parsed_schema(dict(hfile.file_info)[b"schema"].decode())
        cells = {cell.key: cell.value for cell in hfile.cells}
        for p in range(number, partitions, len(bases)):
            partition = f"bench/p{p:05d}"
            for f in range(files):
                name = f"{p:08d}-{f:04d}-0000-0000-000000000000-0_0-1-1_20260101000000000.parquet"
                for column in columns:
                    record = template[column]
                    stats = {**record["ColumnStatsMetadata"], "fileName": name}
                    key = column_stats_key(column, partition, name)
                    cells[key.encode()] = encode_value({**record, "ColumnStatsMetadata": stats}, schema)
                    added += 1
        rewritten = write_hfile(
            [HFileCell(k, cells[k]) for k in sorted(cells)],
            style=hfile.style,
            file_info=hfile.user_file_info(),
            meta_blocks=hfile.meta_blocks,
        )
        mdt.storage.write_bytes(base.path, rewritten)
    return columns, real, len(records) + added


def best(repeat: int, path: Path, read: Callable[[MetadataTable], object]) -> tuple[float, float, object]:
    """The best wall and CPU times of ``read`` on a freshly opened metadata table (opening not
    timed), and what it returned."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        mdt = open_mdt(path)
        wall, cpu = time.perf_counter(), time.process_time()
        result = read(mdt)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--partitions", type=int, default=2000)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = unpack(FIXTURE, Path(directory)).path
        columns, real, total = grow_column_stats(path, args.partitions, args.files)
        prefixes = partition_stats_prefixes(columns, real[:1])
        whole_wall, whole_cpu, whole = best(args.repeat, path, lambda m: m.read_partition(COLUMN_STATS))
        part_wall, part_cpu, found = best(
            args.repeat, path, lambda m: m.read_prefixes(COLUMN_STATS, prefixes)
        )
        check_wall, check_cpu, _ = best(args.repeat, path, lambda m: m.verify_partition(COLUMN_STATS))
        assert isinstance(whole, dict) and isinstance(found, dict)
        assert found == {k: v for k, v in whole.items() if k.startswith(tuple(prefixes))}
        partitions = args.partitions + len(real)
        print(f"column_stats: {total:,} records, {len(columns)} indexed columns, {partitions:,} partitions")
        print(
            f"(a) whole partition:          {whole_wall:8.3f} s wall {whole_cpu:8.3f} s CPU ({len(whole):,})"
        )
        print(f"(b) prefixes of 1 partition:  {part_wall:8.3f} s wall {part_cpu:8.3f} s CPU ({len(found):,})")
        print(f"(c) apply's check, all blocks: {check_wall:7.3f} s wall {check_cpu:8.3f} s CPU")
        print(f"(a)/(b): {whole_wall / part_wall:.1f}x wall, {whole_cpu / part_cpu:.1f}x CPU")
        print(f"(a)/(c): {whole_wall / check_wall:.1f}x wall, {whole_cpu / check_cpu:.1f}x CPU")


if __name__ == "__main__":
    main()
