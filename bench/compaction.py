"""Benchmark: compaction of a generated merge-on-read table, against the physical floor
measured in the same run, and hudi's snapshot read time before over after compaction.

The table (``--rows`` rows inserted by a first commit, then a second commit whose changes are
half updates of existing keys and half inserts, all through log files) is generated before
anything is timed. Compaction = plan + ``run_compaction`` (operations on ``--workers`` threads,
or as Spark tasks with ``--spark``). The floor, with the same number of threads, reads every
input byte (each base file decoded with pyarrow, each log file's bytes) and writes the output
(the rows of each compacted file, held in memory beforehand) with pyarrow and Hudi's codec
(gzip level 6, pages deflated by libdeflate as base files are, on idle cores too), no merge.
Goal: compaction at most 1.5x the floor. Compaction and floor are measured ``--rounds`` times,
one after the other, compaction each time on a fresh copy of the generated table (copying is
not measured); the best wall and CPU times of each are compared, which keeps the ratio steady
on a machine shared with other work (each round's ratios are printed too).

    .venv/bin/python bench/compaction.py [--rows 1400000] [--table-version 6|8] [--rounds 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.artifact.model.compaction import CompactSlice as PlannedOperation
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.common.codec import configured_settings
from maintainer.executors.compaction.executor import run_compaction
from maintainer.hudi.parquet.deflate_threads import process_threads
from maintainer.hudi.parquet.gzip import GzipPagesSink, page_compressor
from maintainer.hudi.payloads import WriteStat
from maintainer.hudi.table.state import open_table
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.tasks import TaskRunner as Runner
from maintainer.tasks import ThreadPoolRunner


def hudi_read_seconds(path: Path, repeat: int) -> tuple[float, int]:
    import hudi

    best, rows = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        batches = hudi.HudiTable(str(path)).read(hudi.HudiReadOptions())
        best = min(best, time.perf_counter() - started)
        rows = sum(b.num_rows for b in batches)
    return best, rows


def warm_up_imports() -> None:
    """Import what the merge path imports lazily (polars for Avro blocks; pandas, which pyarrow
    imports on its first conversion of Python values, and which the floor, measured later in
    this process, finds imported), as a long-lived Spark worker would have: a one-time cost
    not to measure."""
    from maintainer.hudi.logformat.fast_table import polars_available

    polars_available()
    pa.array([0])  # pyarrow's lazy pandas import


def write_gzip(table: pa.Table, path: Path) -> None:
    """Write ``table`` as gzip-6 Parquet the way base files are (pages deflated by libdeflate,
    on idle cores too)."""
    with path.open("wb") as out:
        sink = GzipPagesSink(out, page_compressor(6), process_threads())
        writer = pq.ParquetWriter(sink, table.schema, compression="none", version="1.0")
        writer.write_table(table)
        sink.begin_footer()
        writer.close()
        sink.finish()


def floor_seconds(
    path: Path, ops: list[PlannedOperation], outputs: list[pa.Table], workers: int, out: Path
) -> tuple[float, float]:
    """Wall-clock and process CPU seconds of the floor."""
    out.mkdir(parents=True, exist_ok=True)

    def one(index: int) -> None:
        op = ops[index]
        folder = path / op.partition if op.partition else path
        if op.base_file is not None:
            pq.read_table(folder / op.base_file.name)
        for log in op.log_files:
            (folder / log.name).read_bytes()
        write_gzip(outputs[index], out / f"{index}.parquet")

    started, cpu_started = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, range(len(ops))))
    return time.perf_counter() - started, time.process_time() - cpu_started


@dataclass(frozen=True)
class Measured:
    operations: int
    input_bytes: int
    output_bytes: int
    planned: float
    wall: float
    cpu: float
    stats: list[WriteStat]
    ops: list[PlannedOperation]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_400_000, help="rows of the first commit")
    parser.add_argument("--table-version", type=int, default=8, choices=(6, 8))
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--file-groups", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--spark", action="store_true", help="run the operations as Spark tasks")
    parser.add_argument("--dir", type=Path, help="keep the table here (default: a temporary directory)")
    parser.add_argument("--repeat", type=int, default=2, help="hudi reads: best of N")
    parser.add_argument(
        "--rounds", type=int, default=3,
        help="compaction (of a fresh copy of the table) then floor, N times: best of N each",
    )  # fmt: skip
    return parser.parse_args()


def generate_table(args: argparse.Namespace, path: Path) -> None:
    spec = WorkloadSpec(args.partitions, args.file_groups, commits=2, rows_per_commit=args.rows,
                        update_ratio=0.5, delete_ratio=0.0)  # fmt: skip
    started = time.perf_counter()
    generate(str(path), DatagenSpec("bench", "mor", args.table_version, spec), keep_history=False)
    print(f"generated in {time.perf_counter() - started:.1f} s (not measured)")


def make_runner(args: argparse.Namespace) -> tuple[Runner, Any]:
    if not args.spark:
        return ThreadPoolRunner(args.workers), None
    from maintainer.project.profiles import SparkSettings
    from maintainer.spark.session import create_session

    spark = create_session(SparkSettings(master=f"local[{args.workers}]", conf={"spark.driver.memory": "4g"}))
    from maintainer.spark.tasks import SparkRunner

    runner = SparkRunner(spark)
    runner.run(_warm_worker, list(range(args.workers * 2)))  # start the Python workers first
    return runner, spark


def _warm_worker(index: int) -> int:
    """Import the merge path in a Spark Python worker (not measured)."""
    import maintainer.executors.compaction.operation  # noqa: F401

    warm_up_imports()
    return index


def compact(path: Path, runner: Runner, parquet_compression: str | None = None) -> Measured:
    """Plan and run a compaction; ``parquet_compression`` as the manifest's option (None: none)."""
    warm_up_imports()
    started, cpu_started = time.perf_counter(), time.process_time()
    table = open_table(str(path))
    settings = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
    result = plan_compaction(inputs_of(table), settings, datetime.now(timezone.utc))
    planned = time.perf_counter() - started
    payload = build_compaction_plan(result.operations, "bench")
    config = table.snapshot.config
    parquet = configured_settings(config, parquet_compression)
    outcome = run_compaction(
        table.storage, config, result.instant_time, payload, runner=runner, parquet=parquet
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    output_bytes = sum(s.file_size_in_bytes or 0 for s in outcome.stats)
    return Measured(len(result.operations), result.input_bytes, output_bytes, planned, wall, cpu,
                    list(outcome.stats), list(result.operations))  # fmt: skip


def mb(size: int) -> str:
    return f"{size / 2**20:,.1f} MB"


@dataclass(frozen=True)
class Round:
    run: Measured
    floor: float
    floor_cpu: float


def measure_round(source: Path, path: Path, runner: Runner, args: argparse.Namespace, root: Path) -> Round:
    """Compact a fresh copy of the generated table, then the floor on the same inputs."""
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, path)
    run = compact(path, runner)
    outputs = [pq.read_table(path / (s.path or "")) for s in run.stats]
    floor, floor_cpu = floor_seconds(path, run.ops, outputs, args.workers, root / "floor")
    return Round(run, floor, floor_cpu)


def report(rounds: list[Round], args: argparse.Namespace, spark: Any) -> None:
    run = rounds[0].run
    wall, cpu = min(r.run.wall for r in rounds), min(r.run.cpu for r in rounds)
    floor, floor_cpu = min(r.floor for r in rounds), min(r.floor_cpu for r in rounds)
    best = f"best of {len(rounds)} rounds" if len(rounds) > 1 else "one round"
    print(f"compaction: {run.operations} operations, {mb(run.input_bytes)} in, {mb(run.output_bytes)} out")
    print(f"  plan {run.planned:.2f} s, total {wall:.2f} s wall, {cpu:.2f} s CPU ({best})")
    print(f"floor (pyarrow read inputs + write outputs, {args.workers} threads): {floor:.2f} s wall, "
          f"{floor_cpu:.2f} s CPU ({best})")  # fmt: skip
    for index, r in enumerate(rounds):
        print(f"  round {index + 1}: {r.run.wall / r.floor:.2f}x wall, {r.run.cpu / r.floor_cpu:.2f}x CPU")
    cpu_ratio = (
        "n/a with --spark (the work runs in the Spark workers)" if spark else f"{cpu / floor_cpu:.2f}x"
    )
    print(f"ratio compaction / floor: {wall / floor:.2f}x wall, CPU {cpu_ratio}   (goal <= 1.5x)")


def main() -> None:
    args = parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-compaction-"))
    source, path = root / "generated", root / "mor"
    shutil.rmtree(source, ignore_errors=True)
    generate_table(args, source)
    read_before, rows = hudi_read_seconds(source, args.repeat)
    updated = int(args.rows * 0.5)
    print(f"table: MOR v{args.table_version}, {rows:,} rows, {updated:,} ({updated / rows:.0%}) updated "
          f"through log files, {args.partitions * args.file_groups} file groups")  # fmt: skip
    runner, spark = make_runner(args)
    rounds = [measure_round(source, path, runner, args, root) for _ in range(args.rounds)]
    read_after, rows_after = hudi_read_seconds(path, args.repeat)
    assert rows_after == rows, f"hudi reads {rows_after} rows after compaction, {rows} before"
    report(rounds, args, spark)
    if spark is not None:
        spark.stop()
    print(f"hudi snapshot read: before {read_before:.2f} s, after {read_after:.2f} s, "
          f"before/after {read_before / read_after:.2f}x")  # fmt: skip
    if args.dir is None:
        shutil.rmtree(root)


if __name__ == "__main__":
    pa.set_cpu_count(2)
    main()
