"""Benchmark: validate and compile a generated project of 2,000 tables in 100 manifests.

    .venv/bin/python bench/compile.py [--tables 2000] [--files 100] [--repeat 3]

Generates the project in a temporary folder (project defaults, one _defaults.yml per
folder, Jinja in paths and some values, depends_on chains), then times what
``maintainer compile`` does: load + validate every file, build the graph, select all,
and serialize target/manifest.json. Prints the best time of ``--repeat`` runs.
Goal: under 3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from maintainer.commands.compile_cmd import write_compiled
from maintainer.commands.options import CommonOptions, load_from_options

FOLDERS = 10

PROJECT = """\
name: bench
version: 1
profile: bench
vars:
  lake_root: /data/lake
  retained: 12
defaults:
  rollback: {min_age: 30m}
  clean: {commits_retained: "{{ var('retained') }}"}
  archive: {keep_min_commits: 25, keep_max_commits: 40}
"""

PROFILES = """\
bench:
  target: dev
  outputs:
    dev: {spark: {master: "local[2]"}, threads: 2}
"""

DEFAULTS = """\
tags: [{folder}]
compaction:
  trigger: {{strategy: num_or_time, max_delta_commits: 8}}
"""

TABLE = """\
  - name: {name}
    path: "{{{{ var('lake_root') }}}}/{folder}/{name}"
    tags: [t{mod}, generated]
    description: generated table {index}
{depends}    clean:
      policy: keep_latest_commits
      incremental: true
    compaction:
      strategy: {{name: log_file_size, target_io_mb: 1024}}
    savepoints:
      rolling: {{every: 1d, keep: {keep}}}
"""


def generate(root: Path, tables: int, files: int) -> None:
    (root / "maintainer_project.yml").write_text(PROJECT)
    (root / "profiles.yml").write_text(PROFILES)
    per_file = tables // files
    for file_index in range(files):
        folder = f"domain{file_index % FOLDERS:02d}"
        directory = root / "tables" / folder
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "_defaults.yml").write_text(DEFAULTS.format(folder=folder))
        lines = ["version: 1", "tables:"]
        for offset in range(per_file):
            index = file_index * per_file + offset
            depends = f"    depends_on: [t{index - 1:05d}]\n" if index % 5 else ""
            lines.append(
                TABLE.format(
                    name=f"t{index:05d}",
                    folder=folder,
                    mod=index % 7,
                    index=index,
                    depends=depends,
                    keep=3 + index % 5,
                )
            )
        (directory / f"manifest_{file_index:03d}.yml").write_text("\n".join(lines))


def run_once(root: Path) -> tuple[float, float, int, int]:
    """Wall and CPU seconds of one validate + compile, and the table and node counts."""
    start, start_cpu = time.perf_counter(), time.process_time()
    loaded = load_from_options(CommonOptions(project_dir=root))
    write_compiled(loaded, loaded.project.target_dir / "manifest.json")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return elapsed, cpu, len(loaded.project.tables), len(loaded.graph)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="maintainer-bench-") as folder:
        root = Path(folder)
        generate(root, args.tables, args.files)
        times, cpu_times = [], []
        for _ in range(args.repeat):
            elapsed, cpu, tables, nodes = run_once(root)
            times.append(elapsed)
            cpu_times.append(cpu)
        print(
            f"compile: {tables} tables in {args.files} manifests, {nodes} nodes: "
            f"best {min(times):.2f} s wall ({min(cpu_times):.2f} s CPU); "
            f"runs {', '.join(f'{t:.2f}' for t in times)} s"
        )


if __name__ == "__main__":
    main()
