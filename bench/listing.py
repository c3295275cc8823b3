"""Benchmark: loading a table's state and file-system view against a bare listing floor.

Generates a merge-on-read table layout (v8, timeline layout 2, or v6) of empty files with Hudi
names under a temporary directory: ``--partitions`` partitions, each with partition metadata
and ``--file-groups`` file groups of two base files and ``2 * --logs`` log files (100,000 data
files by default), a matching timeline of completed deltacommits and one completed compaction,
and ``hoodie.properties``. Then measures, best of ``--repeat`` runs:

(a) the floor: a bare parallel listing of the same partition directories with ``pyarrow.fs``
    on a thread pool of the same size as :class:`Storage`'s;
(b) the model: ``load_snapshot`` + ``build_view``;

and prints both times and the ratio (b)/(a). Run: ``.venv/bin/python bench/listing.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.fs as pafs

from maintainer.hudi.config.properties import format_java_properties, table_checksum
from maintainer.hudi.file_groups.fsview import build_view
from maintainer.hudi.table.snapshot import load_snapshot
from maintainer.storage import Storage
from maintainer.storage.threads import DEFAULT_LISTING_THREADS

FIRST_INSTANT = 20240101000000000


def instant_times(count: int) -> list[str]:
    """Increasing 17-digit instant times, one second apart."""
    return [str(FIRST_INSTANT + 1000 * i) for i in range(count)]


def properties(version: int) -> bytes:
    values = {
        "hoodie.table.name": "bench",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": str(version),
        "hoodie.timeline.layout.version": "2" if version >= 8 else "1",
        "hoodie.table.partition.fields": "part",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.precombine.field": "ts",
        "hoodie.table.checksum": str(table_checksum("", "bench")),
    }
    return format_java_properties(values, ("Properties saved by bench/listing.py",)).encode()


def touch_all(paths: list[str]) -> None:
    flags = os.O_CREAT | os.O_WRONLY | os.O_TRUNC
    for path in paths:
        os.close(os.open(path, flags, 0o644))


def timeline_files(version: int, times: list[str], compaction: str) -> list[str]:
    """State files of every instant: deltacommits, and the compaction at ``compaction``."""
    names = []
    for ts in times:
        done = str(int(ts) + 500)
        action = "compaction" if ts == compaction else "deltacommit"
        completed = "commit" if ts == compaction else "deltacommit"
        names += [f"{ts}.{action}.requested", f"{ts}.{action}.inflight"]
        names.append(f"{ts}_{done}.{completed}" if version >= 8 else f"{ts}.{completed}")
    return names


def partition_files(
    version: int, partition_index: int, file_groups: int, times: list[str], compaction: str
) -> list[str]:
    """Names of the data files of one partition: per file group, a base file at the first
    instant and at the compaction, and log files of the deltacommits in between and after."""
    names = [".hoodie_partition_metadata"]
    first = times[0]
    for group in range(file_groups):
        file_id = f"{partition_index:08x}-0000-4000-8000-{group:012x}-0"
        names.append(f"{file_id}_{group}-10-{group}_{first}.parquet")
        names.append(f"{file_id}_{group}-20-{group}_{compaction}.parquet")
        for ts in times[1:]:
            if ts == compaction:
                continue
            base_instant = first if ts < compaction else compaction
            log_instant = ts if version >= 8 else base_instant
            version_number = 1 if version >= 8 else times.index(ts)
            names.append(f".{file_id}_{log_instant}.log.{version_number}_{group}-30-{group}")
    return names


def generate(root: Path, version: int, partitions: int, file_groups: int, logs: int) -> list[str]:
    """Lay the table out under ``root``; returns the partition paths."""
    times = instant_times(2 * logs + 2)
    compaction = times[logs + 1]
    timeline_dir = root / ".hoodie" / ("timeline" if version >= 8 else "")
    timeline_dir.mkdir(parents=True)
    (root / ".hoodie" / "hoodie.properties").write_bytes(properties(version))
    touch_all([str(timeline_dir / name) for name in timeline_files(version, times, compaction)])
    partition_paths = [f"part={i:04d}" for i in range(partitions)]
    for index, partition in enumerate(partition_paths):
        directory = root / partition
        directory.mkdir()
        names = partition_files(version, index, file_groups, times, compaction)
        touch_all([f"{directory}/{name}" for name in names])
    return partition_paths


def bare_listing(root: Path, partitions: list[str], threads: int) -> int:
    """The floor: list every partition directory in parallel with pyarrow.fs."""
    filesystem = pafs.LocalFileSystem()

    def list_one(partition: str) -> int:
        return len(filesystem.get_file_info(pafs.FileSelector(f"{root}/{partition}")))

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return sum(pool.map(list_one, partitions))


def names_only_listing(root: Path, partitions: list[str], threads: int) -> int:
    """What a names-only listing costs (no stat per entry: ``os.listdir`` in the same pool): the
    floor a listing with sizes asked on demand would start from (issue 33)."""

    def list_one(partition: str) -> int:
        return len(os.listdir(f"{root}/{partition}"))

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return sum(pool.map(list_one, partitions))


def model_load(root: Path) -> int:
    """The model: read the table's state and build its file-system view."""
    snapshot = load_snapshot(Storage(str(root)))
    view = build_view(snapshot.timeline, snapshot.listings)
    return sum(len(s.files) for g in view.file_groups() for s in g.slices)


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, float, int]:
    """Best wall-clock and best process CPU time (all threads) of ``repeat`` runs."""
    wall, cpu, result = float("inf"), float("inf"), 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start)
    return wall, cpu, result


def add_layout_arguments(parser: argparse.ArgumentParser) -> None:
    """The generated layout's options, shared with bench/clean.py."""
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--file-groups", type=int, default=10, help="file groups per partition")
    parser.add_argument("--logs", type=int, default=4, help="log files per slice (v8: per deltacommit)")
    parser.add_argument("--table-version", type=int, choices=(6, 8), default=8)
    parser.add_argument("--threads", type=int, default=DEFAULT_LISTING_THREADS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", help="where to generate the table (default: a temporary directory)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_layout_arguments(parser)
    args = parser.parse_args()

    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="maintainer-bench-"))
    root = workdir / "table"
    try:
        start = time.perf_counter()
        partitions = generate(root, args.table_version, args.partitions, args.file_groups, args.logs)
        print(f"generated v{args.table_version} table at {root} in {time.perf_counter() - start:.1f}s")
        bare_listing(root, partitions, args.threads)  # warm the OS directory caches once
        floor, floor_cpu, entries = best_of(args.repeat, lambda: bare_listing(root, partitions, args.threads))
        model, model_cpu, data_files = best_of(args.repeat, lambda: model_load(root))
        print(f"partitions: {len(partitions)}  entries listed: {entries}  data files in view: {data_files}")
        print(f"best of {args.repeat}: wall-clock time (process CPU time, all threads)")
        print(f"(a) bare parallel listing ({args.threads} threads): {floor:.3f}s  (cpu {floor_cpu:.3f}s)")
        print(f"(b) load_snapshot + build_view:        {model:.3f}s  (cpu {model_cpu:.3f}s)")
        print(f"ratio (b)/(a): {model / floor:.2f}x  (cpu {model_cpu / floor_cpu:.2f}x; goal: at most 1.5x)")
    finally:
        if not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
