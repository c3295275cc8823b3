"""Apply side of bench/clean.py: apply time over a plain parallel delete of the same files.

``measure_apply(root, built)`` is called by bench/clean.py after the full plan (b):
(r) the floor of a safe apply (a plan is a request: apply must see what is there before it
    deletes): on a fresh copy of the table (hard links), the partitions the plan touches are
    listed and the planned files deleted in place, by a plain thread pool (``pyarrow.fs``,
    one partition per work item, as many threads as cores);
(d) the old floor: the planned files, hard-linked into a scratch folder first, deleted by the
    same thread pool (no listing; folders of links);
(e) the apply of the plan (``apply_plan`` on a local SparkSession started and warmed up before
    the clock starts): lock, re-read of the table and re-plan (drift check),
    ``.clean.requested`` -> ``.clean.inflight`` -> deletes in Spark tasks grouped by partition
    -> completed clean.
Each is the best of :data:`APPLY_ROUNDS` runs on fresh copies.
Prints (e)/(r) and (f)/(r) (goal: at most 1.5x; (f)/(r) in CPU time too), (e)/(d) and (f)/(d)
as before, and leaves the table as apply does.

Run through bench/clean.py: ``.venv/bin/python bench/clean.py``.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pyarrow.fs as pafs

import maintainer.services.registry  # noqa: F401  (installs the service catalog TableSpec.of reads)
from maintainer.artifact.directory import read_plan, write_plan
from maintainer.artifact.model import DeleteFile
from maintainer.executors.clean.deletion import group_by_partition, run_deletions
from maintainer.graph import NodeId
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.project.profiles import SparkSettings
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.results import NodeRunStatus
from maintainer.services.clean.apply import recheck_planner
from maintainer.services.clean.settings import CleanSpec
from maintainer.spark.session import create_session
from maintainer.spark.tasks import SparkRunner
from maintainer.storage import Storage

RETAINED = 2
APPLY_ROUNDS = 3
"""Applies timed per engine (each on a fresh copy, planned there): the best is reported."""


def _link_copies(root: Path, paths: list[str], scratch: Path) -> dict[str, list[str]]:
    """Hard links of the planned files, per partition: deleting them costs what deleting the
    files costs (one unlink each), and the table keeps its files for the apply."""
    per_partition: dict[str, list[str]] = {}
    for path in paths:
        target = scratch / path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(root / path, target)
        per_partition.setdefault(str(target.parent), []).append(str(target))
    return per_partition


Timing = tuple[float, float]
"""(wall-clock seconds, process CPU seconds of all threads)."""


def timed_pool(work: Callable[[Any], int], items: list[Any], threads: int, expected: int) -> Timing:
    """Wall and CPU seconds a thread pool takes to run ``work`` on every item (one partition
    each); the counts it returns must add up to ``expected``."""
    start, start_cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(threads) as pool:
        done = sum(pool.map(work, items))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    assert done == expected
    return elapsed, cpu


def plain_parallel_delete(per_partition: dict[str, list[str]], threads: int) -> Timing:
    filesystem = pafs.LocalFileSystem()

    def delete(files: list[str]) -> int:
        for file in files:
            filesystem.delete_file(file)
        return len(files)

    return timed_pool(delete, list(per_partition.values()), threads, sum(map(len, per_partition.values())))


def relist_and_delete_in_place(root: Path, paths: list[str], copy: Path, threads: int) -> Timing:
    """The floor of a safe apply: on a fresh hard-link copy of the table (not timed), list each
    partition the plan touches, then delete its planned files in place."""
    shutil.copytree(root, copy, copy_function=os.link)
    per_partition: dict[str, list[str]] = {}
    for path in paths:
        partition, _, _ = path.rpartition("/")
        per_partition.setdefault(str(copy / partition), []).append(str(copy / path))
    filesystem = pafs.LocalFileSystem()

    def relist_and_delete(item: tuple[str, list[str]]) -> int:
        folder, files = item
        listed = {info.path for info in filesystem.get_file_info(pafs.FileSelector(folder))}
        for file in files:
            if file in listed:
                filesystem.delete_file(file)
        return len(files)

    return timed_pool(relist_and_delete, list(per_partition.items()), threads, len(paths))


def warm_spark() -> Any:
    spark = create_session(SparkSettings(app_name="maintainer-bench", conf={"spark.driver.memory": "4g"}))
    SparkRunner(spark).run(abs, list(range(-8, 0)))  # executors' Python workers started
    return spark


def spark_deletes_alone(spark: Any, root: Path, paths: list[str], scratch: Path) -> float:
    """The same deletes as Spark tasks, nothing else (on hard links, the table keeps its files)."""
    _link_copies(root, paths, scratch)
    deletions = group_by_partition(paths)
    start = time.perf_counter()
    results = run_deletions(SparkRunner(spark), Storage(str(scratch)), deletions)
    elapsed = time.perf_counter() - start
    assert sum(len(r.deleted) for r in results) == len(paths)
    return elapsed


def reread_and_replan(root: Path, spec: TableSpec) -> float:
    start = time.perf_counter()
    names_only = "sizes" in inspect.signature(open_table).parameters  # as apply lists, where it can
    table = open_table(str(root), sizes=False) if names_only else open_table(str(root))
    recheck_planner(table, spec, datetime.now(timezone.utc))
    return time.perf_counter() - start


def _apply(root: Path, workdir: Path, engine: str, spark: Any) -> tuple[float, float, int]:
    """One apply on a fresh copy (hard links) of the table, planned there (a plan names its
    table's paths in its payloads); (seconds, CPU seconds of this process, files deleted).
    Planning is not timed."""
    table = workdir / f"table-{engine}"
    shutil.copytree(root, table, copy_function=os.link)
    spec = TableSpec.of(name="bench", path=str(table), manifest="bench.yml", line=1,
                        clean=CleanSpec(commits_retained=RETAINED))  # fmt: skip
    built = build_plan("bench", "bench", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc))
    write_plan(workdir / f"plan-{engine}", built.plan, built.payloads, "bench", {})
    saved = read_plan(workdir / f"plan-{engine}")
    graph = nx.DiGraph()
    graph.add_node(NodeId("bench", "clean"))
    runner = PlanRunner(saved, {"bench": spec}, lambda: spark, engine=engine)
    start, start_cpu = time.perf_counter(), time.process_time()
    results = apply_plan(saved, graph, runner)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    (result,) = results.nodes
    assert result.status is NodeRunStatus.SUCCESS, result.message
    assert not result.drift, result.drift[:3]
    return elapsed, cpu, int(result.effects["files_deleted"])


def _best_apply(root: Path, workdir: Path, engine: str, spark: Any) -> tuple[float, float, int]:
    """The best wall and the best CPU time of :data:`APPLY_ROUNDS` applies, each on its own
    fresh copy, and the files each deleted."""
    runs = []
    for round_ in range(APPLY_ROUNDS):
        scratch = workdir / f"round-{engine}-{round_}"
        scratch.mkdir()
        runs.append(_apply(root, scratch, engine, spark))
        shutil.rmtree(scratch)
    (deleted,) = {run[2] for run in runs}
    return min(run[0] for run in runs), min(run[1] for run in runs), deleted


def _best(timings: list[Timing]) -> Timing:
    return min(wall for wall, _ in timings), min(cpu for _, cpu in timings)


def measure_apply(root: Path, built: BuiltPlan) -> list[str]:
    node = built.plan.tables[0].nodes[0]
    paths = [action.target for action in node.actions_of(DeleteFile)]
    threads = os.cpu_count() or 2
    workdir = Path(tempfile.mkdtemp(prefix="maintainer-bench-apply-", dir=root.parent))
    try:
        floor, _ = _best(
            [
                plain_parallel_delete(_link_copies(root, paths, workdir / f"links-{round_}"), threads)
                for round_ in range(APPLY_ROUNDS)
            ]
        )
        safe_floor, safe_floor_cpu = _best(
            [
                relist_and_delete_in_place(root, paths, workdir / f"copy-{round_}", threads)
                for round_ in range(APPLY_ROUNDS)
            ]
        )
        spark = warm_spark()
        spark_only = spark_deletes_alone(spark, root, paths, workdir / "spark-links")
        spec = TableSpec.of(name="bench", path=str(root), manifest="bench.yml", line=1,
                            clean=CleanSpec(commits_retained=RETAINED))  # fmt: skip
        recheck = reread_and_replan(root, spec)
        on_spark, _, deleted = _best_apply(root, workdir, "spark", spark)
        in_process, in_process_cpu, deleted_locally = _best_apply(root, workdir, "local", None)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    assert deleted == deleted_locally == len(paths)
    return [
        f"(r) re-list the touched partitions + delete the {len(paths)} planned files in place "
        f"({threads} threads): {safe_floor:.3f}s  (cpu {safe_floor_cpu:.3f}s)",
        f"(d) plain parallel delete of the {len(paths)} planned files ({threads} threads): {floor:.3f}s",
        f"(e) apply on Spark (engine spark: lock, re-read + re-plan, instants, deletes as Spark tasks): "
        f"{on_spark:.3f}s",
        f"(f) apply in process (engine local: the same, deletes in the driver): {in_process:.3f}s  "
        f"(cpu {in_process_cpu:.3f}s)",
        f"ratio (e)/(r): {on_spark / safe_floor:.2f}x; (f)/(r): {in_process / safe_floor:.2f}x "
        f"(cpu {in_process_cpu / safe_floor_cpu:.2f}x)  (goal: at most 1.5x)",
        f"ratio (e)/(d): {on_spark / floor:.2f}x; (f)/(d): {in_process / floor:.2f}x  (the old floor)",
        f"    the deletes alone as Spark tasks {spark_only:.3f}s; re-read + re-plan {recheck:.3f}s",
    ]
