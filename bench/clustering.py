"""Benchmark: clustering 1,000 small files into target-size files, beside delta-rs
``DeltaTable.optimize.compact`` on the same rows and a plain pyarrow read-(sort-)write floor,
all measured in the same run.

The table (copy-on-write, ``--partitions`` x ``--file-groups`` file groups, one base file each,
``--rows`` rows in all; generated before anything is timed) is clustered by maintainer: the
planner with Hudi's defaults (no trigger), then ``run_clustering`` (groups on ``--workers``
threads), gzip level 6 as Hudi writes; one new file per partition. delta-rs compacts a Delta
table of the same rows, partitioned the same way into as many files (written beforehand, not
timed), into one file per partition with the same codec and level and the same number of
concurrent tasks. The floor reads each partition's files with pyarrow, concatenates them (sorts
them with ``--sort-column``) and writes one gzip-6 file per partition, on the same threads.
Each round runs all three on fresh copies; the best wall and process CPU of ``--rounds`` rounds
are compared. Goal (issue 35): maintainer within 1.5x of delta-rs.

``--sort-column rider`` makes maintainer sort (the plan's sort columns) and the floor sort too;
delta-rs's compact does not sort (its z-order is a different operation), so that comparison is
printed as is.

deltalake is a benchmark-only extra: ``.venv/bin/pip install '.[bench]'``.

    .venv/bin/python bench/clustering.py [--rows 2000000] [--partitions 10] [--file-groups 100]
        [--rounds 3] [--sort-column rider] [--dir DIR]
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
import pyarrow.compute as pc
import pyarrow.parquet as pq
from compaction import mb, warm_up_imports, write_gzip
from compaction_peer import require_deltalake, writer_properties

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.clustering.executor import run_clustering
from maintainer.hudi.table.state import open_table
from maintainer.services.clustering.inputs import read_clustering_inputs
from maintainer.services.clustering.payload import requested_replace_metadata
from maintainer.services.clustering.planner import plan_clustering
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.tasks import ThreadPoolRunner


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float
    files_in: int
    files_out: int
    bytes_out: int


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--file-groups", type=int, default=100, help="small files per partition")
    parser.add_argument(
        "--workers", type=int, default=2, help="threads (maintainer, floor), tasks (delta-rs)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--sort-column", default=None, help="cluster sorted by this column (delta-rs: unsorted)"
    )
    parser.add_argument("--dir", type=Path, help="keep the tables here (default: a temporary directory)")
    return parser.parse_args()


def generate_table(args: argparse.Namespace, path: Path) -> None:
    workload = WorkloadSpec(args.partitions, args.file_groups, commits=1, rows_per_commit=args.rows,
                            update_ratio=0.0, delete_ratio=0.0)  # fmt: skip
    started = time.perf_counter()
    generate(str(path), DatagenSpec("bench", "cow", 8, workload), keep_history=False)
    print(f"generated in {time.perf_counter() - started:.1f} s (not measured)")


def partition_files(path: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for file in sorted(path.rglob("*.parquet")):
        if ".hoodie" not in file.relative_to(path).parts:
            found.setdefault(file.parent.name, []).append(file)
    return found


def cluster(path: Path, args: argparse.Namespace) -> Timed:
    """Plan (Hudi's defaults, no trigger) and run the clustering of every partition."""
    spec = ClusteringSpec(max_commits=0, sort_columns=(args.sort_column,) if args.sort_column else ())
    files_in = sum(len(v) for v in partition_files(path).values())
    started, cpu_started = time.perf_counter(), time.process_time()
    table = open_table(str(path))
    now = datetime.now(timezone.utc)
    result = plan_clustering(read_clustering_inputs(table, spec, now), spec, now)
    config = table.snapshot.config
    plan = requested_replace_metadata(
        result.groups, spec, table.storage.uri(""), config.version, result.missing_partitions or ()
    )
    outcome = run_clustering(
        table.storage, config, result.instant_time, plan, runner=ThreadPoolRunner(args.workers)
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    written = sum(s.file_size_in_bytes or 0 for s in outcome.stats)
    return Timed(wall, cpu, files_in, len(outcome.stats), written)


def floor(path: Path, out: Path, args: argparse.Namespace) -> Timed:
    """pyarrow: read each partition's files, (sort,) write one gzip-6 file per partition."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    partitions = partition_files(path)

    def one(item: tuple[str, list[Path]]) -> int:
        name, files = item
        rows = pa.concat_tables([pq.read_table(f) for f in files])
        if args.sort_column:
            rows = rows.take(
                pc.sort_indices(rows, [(args.sort_column, "ascending")], null_placement="at_start")
            )
        target = out / f"{name}.parquet"
        write_gzip(rows, target)
        return target.stat().st_size

    started, cpu_started = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        sizes = list(pool.map(one, partitions.items()))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return Timed(wall, cpu, sum(len(v) for v in partitions.values()), len(sizes), sum(sizes))


def write_delta(deltalake: Any, source: Path, into: Path, props: Any) -> int:
    """The table's rows (meta columns dropped) as a Delta table partitioned by city, one file per
    Hudi base file."""
    shutil.rmtree(into, ignore_errors=True)
    for files in partition_files(source).values():
        for file in files:
            rows = pq.read_table(file).replace_schema_metadata(None)
            deltalake.write_deltalake(
                str(into), rows, mode="append", partition_by=["city"], writer_properties=props
            )
    return sum(1 for _ in into.rglob("*.parquet"))


def optimize(deltalake: Any, source: Path, into: Path, tasks: int, props: Any) -> Timed:
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(source, into)
    before = set(into.rglob("*.parquet"))
    started, cpu_started = time.perf_counter(), time.process_time()
    metrics = deltalake.DeltaTable(str(into)).optimize.compact(
        target_size=1 << 30, max_concurrent_tasks=tasks, writer_properties=props
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    added = sum(p.stat().st_size for p in into.rglob("*.parquet") if p not in before)
    return Timed(wall, cpu, metrics["numFilesRemoved"], metrics["numFilesAdded"], added)


def hudi_rows(path: Path) -> int:
    import hudi

    return sum(b.num_rows for b in hudi.HudiTable(str(path)).read(hudi.HudiReadOptions()))


def fresh(source: Path, path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, path)
    return path


def line(name: str, runs: list[Timed]) -> tuple[float, float]:
    wall, cpu = min(r.wall for r in runs), min(r.cpu for r in runs)
    first = runs[0]
    print(f"  {name:<11} {wall:6.2f} s wall, {cpu:6.2f} s CPU (best of {len(runs)}); "
          f"{first.files_in} -> {first.files_out} files, {mb(first.bytes_out)} out")  # fmt: skip
    return wall, cpu


def main() -> None:
    args = parse_args()
    deltalake = require_deltalake()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-clustering-"))
    source = root / "generated"
    shutil.rmtree(source, ignore_errors=True)
    generate_table(args, source)
    props = writer_properties(deltalake, "gzip", 6)
    delta_source = root / "delta-source"
    delta_files = write_delta(deltalake, source, delta_source, props)
    rows_before = hudi_rows(source)
    print(f"table: COW v8, {rows_before:,} rows in {args.partitions * args.file_groups} small files; "
          f"delta-rs {delta_files} files of the same rows; sort column {args.sort_column or 'none'}; "
          f"{args.workers} threads/tasks; deltalake {deltalake.__version__}, "
          f"pyarrow {pa.__version__}")  # fmt: skip
    warm_up_imports()
    ours: list[Timed] = []
    peers: list[Timed] = []
    floors: list[Timed] = []
    for index in range(args.rounds):
        ours.append(cluster(fresh(source, root / "hudi"), args))
        peers.append(optimize(deltalake, delta_source, root / "delta", args.workers, props))
        floors.append(floor(fresh(source, root / "floor-in"), root / "floor-out", args))
        print(f"  round {index + 1}: maintainer {ours[-1].wall:.2f} s, delta-rs {peers[-1].wall:.2f} s, "
              f"floor {floors[-1].wall:.2f} s (wall)")  # fmt: skip
    rows_after = hudi_rows(root / "hudi")
    assert rows_after == rows_before, f"hudi reads {rows_after} rows after clustering, {rows_before} before"
    wall, cpu = line("maintainer", ours)
    peer_wall, peer_cpu = line("delta-rs", peers)
    floor_wall, floor_cpu = line("floor", floors)
    print(
        f"ratio maintainer / delta-rs: {wall / peer_wall:.2f}x wall, {cpu / peer_cpu:.2f}x CPU (goal <= 1.5x)"
    )
    print(f"ratio maintainer / floor:    {wall / floor_wall:.2f}x wall, {cpu / floor_cpu:.2f}x CPU")
    print(f"ratio delta-rs / floor:      {peer_wall / floor_wall:.2f}x wall, {peer_cpu / floor_cpu:.2f}x CPU")
    if args.dir is None:
        shutil.rmtree(root)


if __name__ == "__main__":
    pa.set_cpu_count(2)
    main()
