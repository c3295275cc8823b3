"""Helpers for clean-plan tests on generated tables: a small table with many commits, a
completed clean written as Hudi writes one, and Hudi's cleaner rules computed independently
from the raw listing and timeline file names (not through maintainer's view or planner)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import (
    ActionInstant,
    CleanerPlan,
    CleanMetadata,
    SavepointMetadata,
    SavepointPartitionMetadata,
    encode_avro,
)
from maintainer.hudi.table.snapshot import load_config
from maintainer.storage import Storage

COMMIT_SUFFIXES = (".commit", ".deltacommit", ".replacecommit")
BASE_EXTENSIONS = (".parquet", ".lance", ".orc", ".hfile")


def make_table(
    root: Path,
    kind: str,
    version: int,
    commits: int = 15,
    partitions: int = 3,
    rows: int = 40,
    failed: bool = False,
) -> GeneratedTable:
    workload = WorkloadSpec(partitions=partitions, file_groups=2, commits=commits, rows_per_commit=rows)
    spec = DatagenSpec(name=f"{kind}{version}", table_type=kind, table_version=version, workload=workload,
                       failed_write=failed)  # fmt: skip
    return generate(str(root / spec.name), spec)


def write_completed_clean(path: str, ectr: str, savepointed: str | None = None) -> str:
    """A completed clean (requested plan, inflight, metadata) recording ``ectr``; deletes nothing."""
    storage = Storage(path)
    writer = TimelineWriter(storage, load_config(storage))
    extra = {"savepointed_timestamps": savepointed} if savepointed is not None else None
    plan = CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        earliest_instant_to_retain=ActionInstant(timestamp=ectr, action="commit", state="COMPLETED"),
        files_to_be_deleted_per_partition={},
        file_paths_to_be_deleted_per_partition={},
        partitions_to_be_deleted=(),
        extra_metadata=extra,
    )
    requested = writer.create_requested(Action.CLEAN, encode_avro(plan))
    inflight = writer.transition_to_inflight(requested, encode_avro(plan))
    metadata = CleanMetadata(
        start_clean_time=requested.timestamp,
        time_taken_in_millis=1,
        total_files_deleted=0,
        earliest_commit_to_retain=ectr,
        partition_metadata={},
        extra_metadata=extra,
    )
    writer.complete(inflight, encode_avro(metadata))
    return requested.timestamp


# -- the independent computation ----------------------------------------------------------


def timeline_names(path: Path) -> list[str]:
    directory = path / ".hoodie" / "timeline"
    return os.listdir(directory if directory.is_dir() else path / ".hoodie")


def completed_commits(path: Path) -> list[str]:
    """Requested times of completed commits, from the timeline file names."""
    return sorted(n.split(".")[0].split("_")[0] for n in timeline_names(path) if n.endswith(COMMIT_SUFFIXES))


def pending_writes(path: Path) -> list[str]:
    done = set(completed_commits(path))
    names = timeline_names(path)
    return sorted({n.split(".")[0] for n in names if ".requested" in n or n.endswith(".inflight")} - done)


def expected_ectr(path: Path, retained: int) -> str | None:
    """Hudi: the retained-th newest completed commit, capped by the earliest pending write."""
    commits = completed_commits(path)
    if len(commits) <= retained:
        return None
    candidate = commits[len(commits) - retained]
    pending = [p for p in pending_writes(path) if p < candidate]
    if pending:
        before = [c for c in commits if c < pending[0]]
        return before[-1] if before else None
    return candidate


def base_files(path: Path) -> dict[str, list[tuple[str, str]]]:
    """File id -> [(instant, relative path)] of committed base files, from a raw walk."""
    committed = set(completed_commits(path))
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for directory, _dirs, files in os.walk(path):
        if ".hoodie" in Path(directory).relative_to(path).parts:
            continue
        for name in files:
            if not name.startswith(".") and name.endswith(BASE_EXTENSIONS):
                stem = name.rsplit(".", 1)[0]
                file_id, instant = stem.split("_")[0], stem.split("_")[-1]
                if instant in committed:
                    rel = str((Path(directory) / name).relative_to(path))
                    groups[file_id].append((instant, rel))
    return groups


def expected_cow_deletions(path: Path, retained: int) -> set[str]:
    """KEEP_LATEST_COMMITS on a copy-on-write table without savepoints or replacecommits."""
    ectr = expected_ectr(path, retained)
    return set() if ectr is None else deletions_before(path, ectr)


def deletions_before(path: Path, ectr: str) -> set[str]:
    """Per file group keep the latest slice and the latest slice before the ECTR; delete the
    rest older than the ECTR (KEEP_LATEST_COMMITS and KEEP_LATEST_BY_HOURS)."""
    deleted: set[str] = set()
    for slices in base_files(path).values():
        ordered = sorted(slices)
        older = [s for s in ordered if s[0] < ectr]
        keep = {ordered[-1], *(older[-1:])}
        deleted.update(rel for s in older if s not in keep for rel in [s[1]])
    return deleted


def expected_version_deletions(path: Path, versions: int) -> set[str]:
    """KEEP_LATEST_FILE_VERSIONS: per file group keep the newest ``versions`` slices."""
    return {rel for slices in base_files(path).values() for _, rel in sorted(slices)[:-versions]}


def write_savepoint(path: str, instant: str) -> frozenset[str]:
    """A completed savepoint of ``instant`` keeping the latest base file of every file group as
    of it (as Hudi's savepoint does on a copy-on-write table); returns the relative paths kept."""
    root = Path(path)
    kept: dict[str, list[str]] = defaultdict(list)
    for slices in base_files(root).values():
        as_of = [s for s in sorted(slices) if s[0] <= instant]
        if as_of:
            rel = as_of[-1][1]
            partition = rel.rsplit("/", 1)[0] if "/" in rel else ""
            kept[partition].append(rel)
    metadata = SavepointMetadata(
        savepointed_by="test",
        savepointed_at=0,
        comments="",
        partition_metadata={
            p: SavepointPartitionMetadata(partition_path=p, savepoint_data_file=tuple(sorted(names)))
            for p, names in kept.items()
        },
    )
    storage = Storage(path)
    writer = TimelineWriter(storage, load_config(storage))
    inflight = writer.create_inflight(Action.SAVEPOINT, b"", instant_time=instant)
    writer.complete(inflight, encode_avro(metadata))
    return frozenset(rel for names in kept.values() for rel in names)
