"""Benchmark: datagen writing a merge-on-read table, against Spark writing the same rows as
plain Parquet in the same run.

Writes a MOR table of ``--rows`` rows inserted by the first commit, then a second commit that
updates ``--update-share`` of them (and inserts as many new rows) through log files, with one
Spark task per file group. The floor is Spark (``local[2]``) writing the same changed rows as
plain Parquet (no Hudi layout) with the same codec as Hudi's default (gzip). Prints rows per
second and the ratio; goal: at most 2x.

    .venv/bin/python bench/datagen.py [--rows 2000000] [--table-version 6|8]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import DATA_SCHEMA, Workload, WorkloadSpec
from maintainer.project.profiles import SparkSettings
from maintainer.spark.session import create_session
from maintainer.spark.tasks import SparkRunner


def workload_spec(rows: int, update_share: float, partitions: int, file_groups: int) -> WorkloadSpec:
    # commit 1 changes `rows` rows: update_share of them update existing keys, the rest insert
    return WorkloadSpec(partitions, file_groups, commits=2, rows_per_commit=rows,
                        update_ratio=update_share, delete_ratio=0.0)  # fmt: skip


def spark_floor(spark: object, spec: WorkloadSpec, target: Path) -> tuple[float, float]:
    """Generate the same rows, then time Spark writing them as Parquet (one write per commit)."""
    started = time.perf_counter()
    workload = Workload(spec)
    tables = []
    for _, ids, rows in workload.commits():
        workload.apply(ids, rows)
        tables.append(rows.select(DATA_SCHEMA.names))
    generated = time.perf_counter() - started
    started = time.perf_counter()
    for index, table in enumerate(tables):
        frame = spark.createDataFrame(table)  # type: ignore[attr-defined]
        writer = frame.repartition(spec.partitions * spec.file_groups).write.option("compression", "gzip")
        writer.parquet(str(target / f"commit{index}"))
    return generated, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--update-share", type=float, default=0.5)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--file-groups", type=int, default=2)
    parser.add_argument("--table-version", type=int, default=8, choices=(6, 8))
    args = parser.parse_args()
    spec = workload_spec(args.rows, args.update_share, args.partitions, args.file_groups)
    spark = create_session(SparkSettings(master="local[2]", conf={"spark.driver.memory": "6g"}))
    with tempfile.TemporaryDirectory(prefix="bench-datagen-") as tmp:
        generated, floor = spark_floor(spark, spec, Path(tmp) / "plain")
        started = time.perf_counter()
        table = generate(str(Path(tmp) / "mor"), DatagenSpec("bench", "mor", args.table_version, spec),
                         runner=SparkRunner(spark), keep_history=False)  # fmt: skip
        elapsed = time.perf_counter() - started
        shutil.rmtree(Path(tmp) / "plain")
    written = 2 * args.rows
    final_rows = len(table.expected[table.completed[-1]])
    updated = int(args.rows * args.update_share)
    print(f"table: MOR v{args.table_version}, {final_rows:,} rows, {updated:,} ({updated / final_rows:.0%}) "
          f"updated through log files, {args.partitions * args.file_groups} file groups")  # fmt: skip
    print(f"row generation alone:            {generated:7.2f} s")
    print(f"spark plain parquet, gzip (floor): {floor:5.2f} s  ({written / floor:,.0f} rows/s)")
    print(f"maintainer datagen (hudi table): {elapsed:7.2f} s  ({written / elapsed:,.0f} rows/s)")
    print(f"ratio datagen / (generation + floor): {elapsed / (generated + floor):.2f}x   (goal <= 2x)")
    print(f"ratio datagen / floor:                {elapsed / floor:.2f}x")
    spark.stop()


if __name__ == "__main__":
    pa.set_cpu_count(2)
    main()
