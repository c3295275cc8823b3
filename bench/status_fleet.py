"""Benchmark: ``maintainer status`` against ``maintainer plan`` on the same lake (goal: status
within 1.5x of plan).

    .venv/bin/python bench/status_fleet.py [--tables 300] [--repeat 3] [--dir DIR]

A lake of ``--tables`` real Hudi tables written by ``maintainer.datagen`` (half copy-on-write,
half merge-on-read, table version 8, 3 partitions x 2 file groups, 4 commits), one project with
every service in its defaults. Each command runs as its own process (``python -m
maintainer.cli``); wall and CPU (user + system, ``wait4``) are taken per run, and the best and
median of ``--repeat`` runs are printed with the ratio status / plan. Status lists every
partition of every table (plan lists only what its planners need) and then plans exactly as
plan does, so plan is its floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec

PROJECT = """name: fleet
version: 1
profile: fleet
defaults:
  rollback: {min_age: 1h}
  compaction: {}
  clean: {policy: keep_latest_commits, commits_retained: 2}
  metadata: {}
  archive: {keep_min_commits: 20, keep_max_commits: 30}
"""
PROFILES = """fleet:
  target: dev
  outputs:
    dev:
      threads: 4
"""


def make_lake(root: Path, tables: int) -> list[tuple[str, Path]]:
    made = []
    for index in range(tables):
        kind = "cow" if index % 2 == 0 else "mor"
        name = f"t{index:04d}"
        path = root / f"d{index % 10}" / name
        workload = WorkloadSpec(partitions=3, file_groups=2, commits=4, rows_per_commit=10, seed=index)
        generate(str(path), DatagenSpec(name, kind, 8, workload))
        made.append((name, path))
    return made


def write_project(project: Path, tables: list[tuple[str, Path]]) -> None:
    (project / "tables").mkdir(parents=True)
    (project / "maintainer_project.yml").write_text(PROJECT)
    (project / "profiles.yml").write_text(PROFILES)
    entries = "".join(f"  - name: {name}\n    path: {path}\n" for name, path in tables)
    (project / "tables" / "fleet.yml").write_text("version: 1\ntables:\n" + entries)


def run(args: list[str], scratch: Path) -> tuple[float, float]:
    """One process: (wall, cpu) seconds."""
    log = scratch / "run.log"
    with log.open("wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "maintainer.cli", *args], stdout=sink, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 2, 3, 4):
        raise SystemExit(f"maintainer {' '.join(args)} exited {code}:\n{log.read_text()[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(command: list[str], repeat: int, scratch: Path) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = run(command, scratch)
        walls.append(wall)
        cpus.append(cpu)
    return walls, cpus


def line(name: str, walls: list[float], cpus: list[float]) -> str:
    return (
        f"{name:<7} wall best {min(walls):.2f}s median {statistics.median(walls):.2f}s; "
        f"cpu best {min(cpus):.2f}s median {statistics.median(cpus):.2f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="keep the lake and project here")
    args = parser.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="status-fleet-"))
    try:
        started = time.perf_counter()
        lake = work / "lake"
        project = work / "project"
        if not project.exists():
            write_project(project, make_lake(lake, args.tables))
        print(f"lake: {args.tables} tables ready in {time.perf_counter() - started:.1f}s")
        scratch = work / "scratch"
        scratch.mkdir(exist_ok=True)
        plan = ["plan", "--project-dir", str(project), "--out", str(scratch / "plan")]
        status = [
            "status",
            "--project-dir",
            str(project),
            "--format",
            "json",
            "--out",
            str(scratch / "s.json"),
        ]
        run(plan, scratch)  # warm the directory caches
        plan_walls, plan_cpus = measure(plan, args.repeat, scratch)
        status_walls, status_cpus = measure(status, args.repeat, scratch)
        print(line("plan", plan_walls, plan_cpus))
        print(line("status", status_walls, status_cpus))
        print(
            f"status / plan: wall {min(status_walls) / min(plan_walls):.2f}x best, "
            f"{statistics.median(status_walls) / statistics.median(plan_walls):.2f}x median; "
            f"cpu {min(status_cpus) / min(plan_cpus):.2f}x best, "
            f"{statistics.median(status_cpus) / statistics.median(plan_cpus):.2f}x median (goal <= 1.5x)"
        )
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
