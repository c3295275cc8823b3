"""Wall time of ``maintainer apply`` for small work: a clean of a few files and a savepoint, run in
the driver process (``engine: auto``, the default) against the same apply on Spark
(``engine: spark``, a ``local[2]`` session started by the apply).

Each run is a whole ``maintainer apply`` process on a fresh copy of the same generated COW v8
table (2 partitions x 2 file groups, 6 commits: the clean deletes 16 files) and the same
reviewed plan; planning is not timed. The floor is the same process doing no work:
``maintainer --version`` (interpreter start and imports), measured in the same run.

    .venv/bin/python bench/small_apply.py [--repeat 3]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec

MAINTAINER = str(Path(sys.executable).with_name("maintainer"))
SERVICES = """
    compaction: {enabled: false}
    archive: {enabled: false}
    rollback: {enabled: false}
    clean: {policy: keep_latest_file_versions, file_versions_retained: 1}
    savepoints: {instants: ['%s']}
"""


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def prepared(template: Path, work: Path, engine: str, env: dict[str, str]) -> Path:
    """A fresh copy of the table and project with ``engine:`` set, planned (not timed)."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work, symlinks=True)
    profiles = work / "project" / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", f"engine: {engine}"))
    manifest = work / "project" / "tables" / "example.yml"
    manifest.write_text(manifest.read_text().replace(str(template), str(work)))
    subprocess.run([MAINTAINER, "plan"], cwd=work / "project", env=env, check=True, capture_output=True)
    return work / "project"


def template_under(root: Path, env: dict[str, str]) -> Path:
    template = root / "template"
    table = template / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=6, rows_per_commit=20, seed=6)
    generate(str(table), DatagenSpec("t", "cow", 8, workload))
    commits = sorted(p.name.split(".")[0] for p in (table / ".hoodie" / "timeline").glob("*.commit"))
    subprocess.run([MAINTAINER, "init", str(template / "project")], env=env, check=True, capture_output=True)
    manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n" + SERVICES % commits[-1].split("_")[0]
    (template / "project" / "tables" / "example.yml").write_text(manifest)
    return template


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="small-apply-") as scratch:
        root = Path(scratch)
        env = {**os.environ, "HOME": str(root / "home"), "PYSPARK_PYTHON": sys.executable}
        env.pop("MAINTAINER_PROFILES_DIR", None)
        template = template_under(root, env)
        floor = [timed([MAINTAINER, "--version"], root, env) for _ in range(args.repeat)]
        figures: dict[str, list[float]] = {"auto": [], "spark": []}
        for _ in range(args.repeat):
            for engine, times in figures.items():
                project = prepared(template, root / f"run-{engine}", engine, env)
                times.append(timed([MAINTAINER, "apply"], project, env))
    base = min(floor)
    print(f"floor: maintainer --version {base:.2f} s (min of {args.repeat})")
    for engine, times in figures.items():
        where = "in process (engine: auto)" if engine == "auto" else "on Spark (engine: spark)"
        print(
            f"apply {where}: min {min(times):.2f} s, median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s; {min(times) / base:.1f}x the floor"
        )
    print(f"spark / in process: {min(figures['spark']) / min(figures['auto']):.1f}x")


if __name__ == "__main__":
    main()
