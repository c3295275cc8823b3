"""Benchmark: the columnar view and the clean plan on it, against the bare listing floor.

Lays out bench/clean.py's table (bench/listing.py's merge-on-read table, 1,000 partitions x 10
file groups x 10 files = 100,000 data files by default, plus two commits with metadata), then,
in ``--rounds`` rounds, each measuring in turn (wall-clock and process CPU time, all threads):

(a) the floor: a bare parallel listing of every partition (``pyarrow.fs``, bench/listing.py's);
(a0) a names-only listing of the same partitions (``os.listdir``, no stat): where a listing with
    sizes asked on demand would start from;
(v) the object view: ``load_snapshot`` + ``build_view``, every slice read (bench/listing.py's);
(c) the columnar view: ``load_snapshot`` + every batch of ``view_batches``;
(c0) the same listed names-only (``load_snapshot(sizes=False)``: no ``stat`` per file, sizes
    asked on demand), as a clean's plan and apply list a local table;
(b) the full clean plan of the clean node (``build_plan``, commits_retained 2: half the files);
(n) a clean plan with nothing to delete (``build_plan``, KEEP_LATEST_FILE_VERSIONS keeping 2:
    every partition scanned, no file old enough).

Prints best and median of each, and the ratios to (a) of the best and of the medians (P1: (c0)/(a),
goal at most 1.5x; P2: (b)/(a) at most 1.75x, (n)/(a) at most 1.5x). The clean service plans on
whichever view ``plan_clean_node`` uses: run this script on an older commit for the object planner.

Run: ``.venv/bin/python bench/columnar.py [--rounds 7]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from clean import add_commit, latest_base_instant
from listing import add_layout_arguments, bare_listing, generate, model_load, names_only_listing

import maintainer.services.registry  # noqa: F401  (installs the service catalog TableSpec.of reads)
from maintainer.hudi.table.snapshot import load_snapshot
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import clear_last_clean_cache
from maintainer.storage import Storage

Measure = Callable[[], int]


def columnar_load(root: Path, sizes: bool = True) -> int:
    """The columnar view of the whole table, batch by batch: the data files it holds
    (``sizes=False``: listed names-only, as a clean plans, on the commits that have it)."""
    from maintainer.hudi.file_groups.columnar import view_batches
    from maintainer.hudi.file_groups.view_inputs import load_view_inputs
    from maintainer.hudi.table.snapshot import load_snapshot

    storage = Storage(str(root))
    snapshot = load_snapshot(storage) if sizes else load_snapshot(storage, sizes=False)
    inputs = load_view_inputs(storage, snapshot)
    return sum(batch.files.height for batch in view_batches(snapshot.timeline, snapshot.listings, inputs))


def clean_plan(root: Path, threads: int, clean: CleanSpec) -> int:
    """A cold plan of the clean node (files it deletes)."""
    clear_last_clean_cache()
    spec = TableSpec.of(name="bench", path=str(root), manifest="bench.yml", line=1, clean=clean)
    built = build_plan(
        "bench", "bench", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc), threads
    )
    node = built.plan.tables[0].nodes[0]
    return len(node.actions)


def timed(run: Measure) -> tuple[float, float, int]:
    start, start_cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - start, time.process_time() - start_cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_layout_arguments(parser)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="maintainer-bench-columnar-"))
    root = workdir / "table"
    try:
        partitions = generate(root, args.table_version, args.partitions, args.file_groups, args.logs)
        compaction = latest_base_instant(root / "part=0000")
        add_commit(root, args.table_version, 0, compaction)
        add_commit(root, args.table_version, 1, compaction)
        bare_listing(root, partitions, args.threads)  # warm the OS directory caches once
        measures: dict[str, Measure] = {
            "(a) bare parallel listing": lambda: bare_listing(root, partitions, args.threads),
            "(a0) names-only listing": lambda: names_only_listing(root, partitions, args.threads),
            "(v) object view": lambda: model_load(root),
            "(b) full clean plan": lambda: clean_plan(root, args.threads, CleanSpec(commits_retained=2)),
            "(n) nothing to delete": lambda: clean_plan(
                root, args.threads, CleanSpec(policy="keep_latest_file_versions", file_versions_retained=2)
            ),
        }
        if importlib.util.find_spec("maintainer.hudi.file_groups.columnar") is not None:
            measures["(c) columnar view"] = lambda: columnar_load(root)  # not on commits before it
        if "sizes" in inspect.signature(load_snapshot).parameters:
            measures["(c0) columnar view, names-only"] = lambda: columnar_load(root, sizes=False)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in measures}
        results: dict[str, int] = {}
        for _ in range(args.rounds):
            for name, run in measures.items():
                wall, cpu, results[name] = timed(run)
                times[name].append((wall, cpu))
        print(f"{len(partitions)} partitions; results: {results}")
        print(f"{args.rounds} rounds: best / median, wall-clock (process CPU, all threads); ratio to (a)")
        floor = times["(a) bare parallel listing"]
        floor_best = (min(w for w, _ in floor), min(c for _, c in floor))
        floor_median = (statistics.median(w for w, _ in floor), statistics.median(c for _, c in floor))
        for name, runs in times.items():
            best = (min(w for w, _ in runs), min(c for _, c in runs))
            median = (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            print(
                f"{name:28s} best {best[0]:.3f}s (cpu {best[1]:.3f}s) "
                f"median {median[0]:.3f}s (cpu {median[1]:.3f}s) | "
                f"ratio best {best[0] / floor_best[0]:.2f}x (cpu {best[1] / floor_best[1]:.2f}x) "
                f"median {median[0] / floor_median[0]:.2f}x (cpu {median[1] / floor_median[1]:.2f}x)"
            )
    finally:
        if not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
