"""Benchmark: how ``maintainer plan`` scales, from 100k to 1M files in one table, and a lake.

    .venv/bin/python bench/scale.py [--sizes 100000,250000,500000,1000000] [--lake-tables 2000]
                                    [--quick] [--dir DIR] [--keep] [--threads 4]

(1) One copy-on-write table (v8, or ``--table-version 6``) of empty files with Hudi names:
    ``--files-per-partition`` (100) files per partition, so 1M files are 10,000 partitions;
    each partition holds half as many file groups, each with a base file of the two completed
    commits of the timeline (commits without metadata, as bench/listing.py's). The table grows
    in place from one size to the next. At each size, each plan is a whole
    ``maintainer plan`` process (wall and CPU time from ``wait4``; peak RSS, ``VmHWM``, as the
    process reports it: ``wait4``'s counts this benchmark's own memory at the fork):
    - ``half``: rollback, archive and ``clean: keep_latest_file_versions, 1``; the clean
      deletes every older base file: half the files;
    - ``none``: the same with ``file_versions_retained: 2``: nothing to delete, so the plan
      lists nothing and its peak memory should not grow with the table ("a plan must never
      hold more than what the plan itself lists plus one partition's view per thread").
    Floors, same run: the bare parallel listing of the same partitions (bench/listing.py's
    ``bare_listing``, in this process, warm caches) for time; a ``maintainer plan`` of a
    one-partition table for the process's start (time and RSS), subtracted as "net".
    Growth versus the smallest size: (net figure ratio) / (size ratio); 1.0 is linear.
(2) A lake of ``--lake-tables`` small tables (10 partitions x 10 files each, same layout) in
    one project of 100 manifests, planned by one ``maintainer plan`` (``half`` services).

Tests never assert on time; figures are printed only. ``--keep`` keeps the generated tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from listing import bare_listing

from maintainer.hudi.config.properties import format_java_properties, table_checksum
from maintainer.storage.threads import DEFAULT_LISTING_THREADS

PEAK_FILE_ENV = "MAINTAINER_BENCH_PEAK_FILE"
RUN_AND_REPORT_PEAK = f"""
import os, sys
from maintainer.cli import main
code = main(sys.argv[1:])
with open('/proc/self/status') as status:
    peak = next(line.split()[1] for line in status if line.startswith('VmHWM:'))
with open(os.environ['{PEAK_FILE_ENV}'], 'w') as out:
    out.write(peak)
sys.exit(code)
"""
"""``maintainer`` in a process that writes its own peak RSS (``VmHWM``, kB) at the end: the
peak ``wait4`` reports for a child counts the memory of this benchmark's process at the fork
(which grows with the tables it lists), ``VmHWM`` only the child's own."""
FIRST_INSTANT = 20240101000000000
COMMITS = 2
QUICK_SIZES = (20_000, 50_000)
QUICK_LAKE_TABLES = 200
LAKE_PARTITIONS, LAKE_FILES = 10, 10
MANIFESTS = 100

CLEAN = {
    "half": "{policy: keep_latest_file_versions, file_versions_retained: 1}",
    "none": "{policy: keep_latest_file_versions, file_versions_retained: 2}",
}
PROJECT = """\
name: scale
version: 1
profile: scale
manifest_paths: [tables]
target_path: target
defaults:
  rollback: {{failed_writes_policy: eager, min_age: 1h}}
  clean: {clean}
  archive: {{keep_min_commits: 20, keep_max_commits: 30}}
"""
PROFILES = """\
scale:
  target: dev
  outputs:
    dev: {{spark: {{master: "local[2]"}}, threads: {threads}, engine: auto}}
"""


# -- the tables ------------------------------------------------------------------------------


def instants() -> list[str]:
    return [str(FIRST_INSTANT + 1000 * i) for i in range(COMMITS)]


def properties(name: str, version: int) -> bytes:
    values = {
        "hoodie.table.name": name,
        "hoodie.table.type": "COPY_ON_WRITE",
        "hoodie.table.version": str(version),
        "hoodie.timeline.layout.version": "2" if version >= 8 else "1",
        "hoodie.table.partition.fields": "part",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.precombine.field": "ts",
        "hoodie.table.checksum": str(table_checksum("", name)),
    }
    return format_java_properties(values, ("Properties saved by bench/scale.py",)).encode()


def touch_all(paths: list[str]) -> None:
    flags = os.O_CREAT | os.O_WRONLY | os.O_TRUNC
    for path in paths:
        os.close(os.open(path, flags, 0o644))


def init_table(root: Path, name: str, version: int) -> None:
    """``hoodie.properties`` and a timeline of completed commits (no metadata)."""
    timeline = root / ".hoodie" / ("timeline" if version >= 8 else "")
    timeline.mkdir(parents=True)
    (root / ".hoodie" / "hoodie.properties").write_bytes(properties(name, version))
    names = []
    for ts in instants():
        done = str(int(ts) + 500)
        names += [f"{ts}.commit.requested", f"{ts}.inflight"]
        names.append(f"{ts}_{done}.commit" if version >= 8 else f"{ts}.commit")
    touch_all([str(timeline / n) for n in names])


def partition_name(index: int) -> str:
    return f"part={index:05d}"


def add_partitions(root: Path, start: int, stop: int, files_per_partition: int) -> None:
    """Partitions ``start`` to ``stop - 1``: partition metadata and, per file group, one base
    file per commit."""
    times = instants()
    for index in range(start, stop):
        directory = root / partition_name(index)
        directory.mkdir()
        names = [".hoodie_partition_metadata"]
        for group in range(files_per_partition // COMMITS):
            file_id = f"{index:08x}-0000-4000-8000-{group:012x}-0"
            names += [f"{file_id}_1-0-1_{ts}.parquet" for ts in times]
        touch_all([f"{directory}/{name}" for name in names])


def write_project(project: Path, tables: list[tuple[str, Path]], clean: str, threads: int) -> None:
    """A project of ``tables`` (name, path) in up to ``MANIFESTS`` manifests."""
    (project / "tables").mkdir(parents=True)
    (project / "maintainer_project.yml").write_text(PROJECT.format(clean=CLEAN[clean]))
    (project / "profiles.yml").write_text(PROFILES.format(threads=threads))
    per_file = max(1, -(-len(tables) // MANIFESTS))
    for start in range(0, len(tables), per_file):
        entries = [f"  - name: {name}\n    path: {path}\n" for name, path in tables[start : start + per_file]]
        manifest = project / "tables" / f"manifest_{start // per_file:03d}.yml"
        manifest.write_text("version: 1\ntables:\n" + "".join(entries))


# -- measuring -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    """User + system seconds of the process (all threads): steadier than wall on a busy machine."""
    peak_rss: int
    """Bytes."""
    actions: int
    deletions: int


def count_plan(plan_dir: Path) -> tuple[int, int]:
    """Actions of the plan's nodes, and the files its clean nodes delete."""
    plan = json.loads((plan_dir / "plan.json").read_text())
    actions = deletions = 0
    for table in plan["tables"]:
        for node in table["nodes"]:
            actions += len(node.get("actions", ()))
            if node["service"] == "clean":
                deletions += int((node.get("effect") or {}).get("files", 0))
    return actions, deletions


def run_plan(project: Path, scratch: Path, env: dict[str, str]) -> Run:
    """One ``maintainer plan`` process: wall and CPU time (``wait4``), its own peak RSS."""
    out = project / "target" / "plan"
    shutil.rmtree(out, ignore_errors=True)
    log = scratch / "plan.log"
    command = [
        sys.executable,
        "-c",
        RUN_AND_REPORT_PEAK,
        "plan",
        "--project-dir",
        str(project),
        "--out",
        str(out),
    ]
    peak_file = scratch / "peak.txt"
    peak_file.unlink(missing_ok=True)
    with log.open("wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen(
            command, env={**env, PEAK_FILE_ENV: str(peak_file)}, stdout=sink, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"maintainer plan exited {child.returncode}:\n{log.read_text()[-3000:]}")
    actions, deletions = count_plan(out)
    shutil.rmtree(out, ignore_errors=True)
    peak = int(peak_file.read_text()) * 1024
    return Run(wall, usage.ru_utime + usage.ru_stime, peak, actions, deletions)


def best_run(repeat: int, project: Path, scratch: Path, env: dict[str, str]) -> Run:
    runs = [run_plan(project, scratch, env) for _ in range(repeat)]
    wall, cpu, rss = min(r.wall for r in runs), min(r.cpu for r in runs), min(r.peak_rss for r in runs)
    return Run(wall, cpu, rss, runs[0].actions, runs[0].deletions)


def best_floor(repeat: int, root: Path, partitions: list[str]) -> tuple[float, int]:
    bare_listing(root, partitions, DEFAULT_LISTING_THREADS)  # warm the directory caches
    best, entries = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        entries = bare_listing(root, partitions, DEFAULT_LISTING_THREADS)
        best = min(best, time.perf_counter() - start)
    return best, entries


def mb(value: float) -> str:
    return f"{value / 2**20:.0f}"


# -- the two parts ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SizeRow:
    files: int
    partitions: int
    floor: float
    runs: dict[str, Run]


def scale_rows(args: argparse.Namespace, work: Path, env: dict[str, str]) -> list[SizeRow]:
    root = work / "table"
    init_table(root, "scale", args.table_version)
    projects = {}
    for clean in CLEAN:
        projects[clean] = work / f"project-{clean}"
        write_project(projects[clean], [("scale", root)], clean, args.threads)
    rows: list[SizeRow] = []
    made = 0
    for files in args.sizes:
        partitions = files // args.files_per_partition
        began = time.perf_counter()
        add_partitions(root, made, partitions, args.files_per_partition)
        made = max(made, partitions)
        print(f"  {files:,} files: table grown in {time.perf_counter() - began:.1f}s", flush=True)
        names = [partition_name(i) for i in range(partitions)]
        floor, _ = best_floor(args.repeat, root, names)
        runs = {clean: best_run(args.repeat, project, work, env) for clean, project in projects.items()}
        rows.append(SizeRow(files, partitions, floor, runs))
        half = runs["half"]
        print(
            f"  {files:,} files: plan {half.wall:.2f}s, {mb(half.peak_rss)} MB, deletes {half.deletions:,} "
            f"files; nothing to delete: "
            f"{runs['none'].wall:.2f}s, {mb(runs['none'].peak_rss)} MB; floor {floor:.2f}s",
            flush=True,
        )
    return rows


def print_scale(rows: list[SizeRow], start: Run) -> None:
    first = rows[0]
    print(
        f"\nstart floor (plan of a 1-partition table): {start.wall:.2f}s (cpu {start.cpu:.2f}s), "
        f"{mb(start.peak_rss)} MB peak RSS; "
        "net = figure - start floor"
    )
    for clean, title in (("half", "clean deletes half the files"), ("none", "nothing to delete")):
        print(
            f"\n{title} (best of the runs; growth = net ratio / size ratio vs {first.files:,}; 1.0 = linear)"
        )
        print(
            f"{'files':>9} {'parts':>6} {'wall s':>7} {'net s':>6} {'floor s':>7} {'net/fl':>6} {'cpu s':>6} "
            f"{'net cpu':>7} {'RSS MB':>6} {'net MB':>6} {'actions':>7} {'us/file':>7} {'cpu us':>6} "
            f"{'B/file':>6} {'t grow':>6} {'c grow':>6} {'m grow':>6}"
        )
        base = first.runs[clean]
        base_time, base_cpu = base.wall - start.wall, base.cpu - start.cpu
        base_memory = base.peak_rss - start.peak_rss
        for row in rows:
            run = row.runs[clean]
            net_time, net_cpu = run.wall - start.wall, run.cpu - start.cpu
            net_memory = run.peak_rss - start.peak_rss
            size = row.files / first.files
            print(
                f"{row.files:>9,} {row.partitions:>6,} {run.wall:>7.2f} {net_time:>6.2f} {row.floor:>7.2f} "
                f"{net_time / row.floor:>6.2f} {run.cpu:>6.2f} {net_cpu:>7.2f} {mb(run.peak_rss):>6} "
                f"{mb(net_memory):>6} {run.actions:>7,} {1e6 * net_time / row.files:>7.2f} "
                f"{1e6 * net_cpu / row.files:>6.2f} {net_memory / row.files:>6.0f} "
                f"{net_time / base_time / size:>6.2f} {net_cpu / base_cpu / size:>6.2f} "
                f"{net_memory / base_memory / size:>6.2f}"
            )


def lake(args: argparse.Namespace, work: Path, env: dict[str, str], start: Run) -> None:
    tables = []
    began = time.perf_counter()
    for index in range(args.lake_tables):
        name = f"t{index:05d}"
        root = work / "lake" / f"d{index % 10:02d}" / name
        init_table(root, name, args.table_version)
        add_partitions(root, 0, LAKE_PARTITIONS, LAKE_FILES)
        tables.append((name, root))
    files = args.lake_tables * LAKE_PARTITIONS * LAKE_FILES
    took = time.perf_counter() - began
    print(f"\nlake: {args.lake_tables:,} tables, {files:,} files, generated in {took:.1f}s")
    for clean, title in (("half", "clean deletes half"), ("none", "nothing to delete")):
        project = work / f"project-lake-{clean}"
        write_project(project, tables, clean, args.threads)
        run = best_run(args.repeat, project, work, env)
        net_time, net_cpu = run.wall - start.wall, run.cpu - start.cpu
        net_memory = run.peak_rss - start.peak_rss
        print(
            f"lake plan, {title}: {run.wall:.2f}s wall ({net_time:.2f}s net; cpu {run.cpu:.2f}s, "
            f"{net_cpu:.2f}s net), {mb(run.peak_rss)} MB peak RSS ({mb(net_memory)} MB net); "
            f"{run.actions:,} actions; per table (net): {1e3 * net_time / args.lake_tables:.2f} ms, "
            f"{1e3 * net_cpu / args.lake_tables:.2f} ms cpu, {net_memory / args.lake_tables / 1024:.0f} KiB; "
            f"threads {args.threads}"
        )


def start_floor(args: argparse.Namespace, work: Path, env: dict[str, str]) -> Run:
    root = work / "tiny"
    init_table(root, "tiny", args.table_version)
    add_partitions(root, 0, 1, 2)
    project = work / "project-tiny"
    write_project(project, [("tiny", root)], "half", args.threads)
    return best_run(max(3, args.repeat), project, work, env)


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--sizes", default="100000,250000,500000,1000000", help="files, comma-separated")
    parser.add_argument("--files-per-partition", type=int, default=100)
    parser.add_argument("--lake-tables", type=int, default=2000, help="0: no lake")
    parser.add_argument("--table-version", type=int, choices=(6, 8), default=8)
    parser.add_argument("--threads", type=int, default=4, help="the profile's threads (tables at once)")
    parser.add_argument("--repeat", type=int, default=1, help="plans per figure (best of)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20k and 50k files, 200 tables")
    parser.add_argument("--dir", help="where to generate (default: a temporary directory under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep what was generated")
    args = parser.parse_args()
    args.sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.quick:
        args.sizes, args.lake_tables = list(QUICK_SIZES), min(args.lake_tables, QUICK_LAKE_TABLES)

    work = Path(tempfile.mkdtemp(prefix="maintainer-scale-", dir=args.dir))
    env = {**os.environ, "HOME": str(work / "home")}
    for name in ("MAINTAINER_PROFILES_DIR", "MAINTAINER_PROJECT_DIR", "MAINTAINER_TARGET"):
        env.pop(name, None)
    try:
        start = start_floor(args, work, env)
        print(f"generating under {work}; sizes {', '.join(f'{s:,}' for s in args.sizes)}", flush=True)
        rows = scale_rows(args, work, env)
        print_scale(rows, start)
        if args.lake_tables:
            lake(args, work, env, start)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
