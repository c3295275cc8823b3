"""Benchmark: planning a clean, full and incremental, against a bare listing floor.

Lays out bench/listing.py's merge-on-read table (1,000 partitions x 10 file groups x (2 base
files + 8 log files) = 100,000 data files by default; its commits carry no metadata), then
adds commits with real commit metadata, each touching one partition: ``A`` (part=0000) and
``B`` (part=0001). With ``commits_retained: 2`` the earliest commit to retain is ``A`` and the
first slice of every file group (a base file and 4 logs: half the files) is cleanable.

(a) the floor: a bare parallel listing of every partition directory (``pyarrow.fs``);
(v) for reference, bench/listing.py's model: ``load_snapshot`` + ``build_view``;
(b) the full plan of the clean node (``build_table``: timeline, listing of every partition,
    view, planner; no earlier clean, so a full scan);
then the planned files are deleted and a completed clean recording ``A`` is written (as apply
leaves the table), a commit ``C`` touches part=0002, and
(c) the incremental plan: the window holds ``A`` only, so one partition is listed.

Prints (b)/(a) (goal: at most 1.5x) and (c)/(b) (goal: at most 5%).

APPLY SIDE: if ``bench/clean_apply.py`` exists and defines
``measure_apply(root: Path, built: BuiltPlan) -> list[str]``, it is called after (b) instead of
the deletion by hand; it must leave the table as apply does (planned files deleted, completed
clean) and returns the lines to print (e.g. apply time over a plain parallel delete).

Run: ``.venv/bin/python bench/clean.py`` (``--help`` for the options).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from listing import add_layout_arguments, bare_listing, best_of, generate, model_load

import maintainer.services.registry  # noqa: F401  (installs the service catalog TableSpec.of reads)
from maintainer.artifact.model import CleanEffect, DeleteFile, NodePlan
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import (
    ActionInstant,
    CleanerPlan,
    CleanMetadata,
    CommitMetadata,
    WriteStat,
    encode_avro,
    encode_commit_metadata_json,
)
from maintainer.hudi.table.snapshot import load_config
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import clear_last_clean_cache
from maintainer.storage import Storage

RETAINED = 2
SAVEPOINTS = "savepointed_timestamps"


def file_id(partition_index: int, group: int) -> str:
    """bench/listing.py's file id of a file group."""
    return f"{partition_index:08x}-0000-4000-8000-{group:012x}-0"


def latest_base_instant(partition: Path) -> str:
    stems = (n.rsplit(".", 1)[0] for n in os.listdir(partition) if n.endswith(".parquet"))
    return max(stem.rsplit("_", 1)[-1] for stem in stems)


def add_commit(root: Path, version: int, partition_index: int, compaction: str) -> str:
    """A completed deltacommit writing one log file to file group 0 of one partition, with
    its commit metadata (Avro for v8, JSON for v6)."""
    storage = Storage(str(root))
    writer = TimelineWriter(storage, load_config(storage))
    requested = writer.create_requested(Action.DELTA_COMMIT)
    partition = f"part={partition_index:04d}"
    fid = file_id(partition_index, 0)
    log_instant = requested.timestamp if version >= 8 else compaction
    name = f".{fid}_{log_instant}.log.{1 if version >= 8 else 99}_0-40-0"
    (root / partition / name).write_bytes(b"#HUDI#")
    path = f"{partition}/{name}"
    stat = WriteStat(file_id=fid, path=path, partition_path=partition, prev_commit=compaction,
                     num_writes=1, total_write_bytes=6)  # fmt: skip
    metadata = CommitMetadata(partition_to_write_stats={partition: (stat,)}, extra_metadata={},
                              operation_type="UPSERT")  # fmt: skip
    content = encode_avro(metadata) if version >= 8 else encode_commit_metadata_json(metadata)
    writer.complete(writer.transition_to_inflight(requested), content)
    return requested.timestamp


def clean_node(root: Path, threads: int) -> tuple[BuiltPlan, NodePlan]:
    spec = TableSpec.of(name="bench", path=str(root), manifest="bench.yml", line=1,
                        clean=CleanSpec(commits_retained=RETAINED))  # fmt: skip
    built = build_plan(
        "bench", "bench", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc), threads
    )
    return built, built.plan.tables[0].nodes[0]


def timed_plans(
    repeat: int, root: Path, threads: int
) -> tuple[float, float, list[tuple[BuiltPlan, NodePlan]]]:
    """Best wall-clock and CPU time of ``repeat`` plans, and the plans made."""
    runs: list[tuple[BuiltPlan, NodePlan]] = []

    def run() -> int:
        clear_last_clean_cache()  # a cold plan, as a new `maintainer plan` process makes
        runs.append(clean_node(root, threads))
        return len(runs)

    wall, cpu, _ = best_of(repeat, run)
    return wall, cpu, runs


def clean_by_hand(root: Path, node: NodePlan) -> None:
    """What apply leaves: the planned files deleted and a completed clean recording the ECTR."""
    for action in node.actions_of(DeleteFile):
        os.remove(root / action.target)
    storage = Storage(str(root))
    writer = TimelineWriter(storage, load_config(storage))
    ectr = clean_effect(node).earliest_commit_to_retain
    assert ectr is not None, "the benchmark's clean plan retains from a commit"
    plan = CleanerPlan(policy="KEEP_LATEST_COMMITS", files_to_be_deleted_per_partition={},
                       earliest_instant_to_retain=ActionInstant(timestamp=ectr, action="deltacommit",
                                                                state="COMPLETED"))  # fmt: skip
    requested = writer.create_requested(Action.CLEAN, encode_avro(plan))
    inflight = writer.transition_to_inflight(requested, encode_avro(plan))
    metadata = CleanMetadata(start_clean_time=requested.timestamp, time_taken_in_millis=0,
                             total_files_deleted=clean_effect(node).files, earliest_commit_to_retain=ectr,
                             partition_metadata={}, extra_metadata={SAVEPOINTS: ""})  # fmt: skip
    writer.complete(inflight, encode_avro(metadata))


def clean_effect(node: NodePlan) -> CleanEffect:
    assert isinstance(node.effect, CleanEffect), node.effect
    return node.effect


def apply_hook() -> Callable[[Path, BuiltPlan], list[str]] | None:
    """``bench/clean_apply.py``'s ``measure_apply``, when the apply side provides one."""
    if not (Path(__file__).parent / "clean_apply.py").exists():
        return None
    module: Any = importlib.import_module("clean_apply")
    hook: Callable[[Path, BuiltPlan], list[str]] = module.measure_apply
    return hook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_layout_arguments(parser)
    args = parser.parse_args()

    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="maintainer-bench-clean-"))
    root = workdir / "table"
    version = args.table_version
    try:
        start = time.perf_counter()
        partitions = generate(root, version, args.partitions, args.file_groups, args.logs)
        compaction = latest_base_instant(root / "part=0000")
        add_commit(root, version, 0, compaction)
        add_commit(root, version, 1, compaction)
        print(f"generated v{version} table at {root} in {time.perf_counter() - start:.1f}s")

        bare_listing(root, partitions, args.threads)  # warm the OS directory caches once
        floor, floor_cpu, entries = best_of(args.repeat, lambda: bare_listing(root, partitions, args.threads))
        view, view_cpu, _ = best_of(args.repeat, lambda: model_load(root))
        full, full_cpu, full_runs = timed_plans(args.repeat, root, args.threads)
        built, node = full_runs[-1]
        print(f"partitions: {len(partitions)}  entries listed: {entries}")
        effect = clean_effect(node)
        print(f"full plan: {effect.files} files to delete ({effect.scan} scan), "
              f"earliest commit to retain {effect.earliest_commit_to_retain}")  # fmt: skip

        hook = apply_hook()
        if hook is None:
            clean_by_hand(root, node)
            apply_lines = ["apply: bench/clean_apply.py not present (apply ratio measured by the apply side)"]
        else:
            apply_lines = hook(root, built)  # on copies of the table
            clean_by_hand(root, node)
        add_commit(root, version, 2, compaction)
        incr, incr_cpu, incremental_runs = timed_plans(args.repeat, root, args.threads)
        _, incremental = incremental_runs[-1]
        assert clean_effect(incremental).scan == "incremental", incremental.reasons

        print(f"best of {args.repeat}: wall-clock time (process CPU time, all threads)")
        print(f"(a) bare parallel listing ({args.threads} threads): {floor:.3f}s  (cpu {floor_cpu:.3f}s)")
        print(f"(v) load_snapshot + build_view:        {view:.3f}s  (cpu {view_cpu:.3f}s)")
        print(f"(b) full clean plan:                   {full:.3f}s  (cpu {full_cpu:.3f}s)")
        print(f"(c) incremental clean plan:            {incr:.4f}s  (cpu {incr_cpu:.4f}s); "
              f"{clean_effect(incremental).files} files, reasons: {incremental.reasons[2]}")  # fmt: skip
        print(f"ratio (b)/(a): {full / floor:.2f}x  (cpu {full_cpu / floor_cpu:.2f}x; goal: at most 1.5x)")
        print(f"ratio (b)/(v): {full / view:.2f}x  (cpu {full_cpu / view_cpu:.2f}x; the planner's own cost)")
        share, share_cpu = 100 * incr / full, 100 * incr_cpu / full_cpu
        print(f"ratio (c)/(b): {share:.2f}%  (cpu {share_cpu:.2f}%; goal: at most 5%)")
        for line in apply_lines:
            print(line)
    finally:
        if not args.dir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
