"""The clean plan on merge-on-read tables with two slices per file group (generated, then
compacted in-process by maintainer's compaction service): KEEP_LATEST_FILE_VERSIONS with one
version deletes each compacted group's older slice, base file and log files together, exactly
as an independent computation from the raw listing says; hudi then reads the same latest
snapshot and the same time travel to the compaction."""

from __future__ import annotations

import os
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.compaction.executor import run_compaction
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.model import PlanStatus
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from tests.support import oracle
from tests.support.plans import files_to_delete

EVERYTHING = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)


def compacted_table(tmp_path: Path, version: int) -> tuple[Path, str]:
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=15, rows_per_commit=60)
    path = tmp_path / f"mor{version}"
    generate(str(path), DatagenSpec("trips", "mor", version, workload))
    table = open_table(str(path))
    result = plan_compaction(inputs_of(table), EVERYTHING, datetime.now(timezone.utc))
    assert result.status is PlanStatus.SCHEDULE, result.reasons
    plan = build_compaction_plan(result.operations, "test")
    run_compaction(table.storage, table.snapshot.config, result.instant_time, plan)
    return path, result.instant_time


def file_id_of(name: str) -> str:
    return name.lstrip(".").split("_")[0]


def expected_deletions(root: Path, compaction: str) -> set[str]:
    """Every data file of a compacted group except its new base file (all its logs were
    written before the compaction, so they belong to the older slice)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for directory, _dirs, files in os.walk(root):
        if ".hoodie" in Path(directory).relative_to(root).parts:
            continue
        for name in files:
            if name.endswith(".parquet") or ".log." in name:
                groups[file_id_of(name)].append(str((Path(directory) / name).relative_to(root)))
    deleted: set[str] = set()
    for paths in groups.values():
        new_base = [p for p in paths if p.endswith(f"_{compaction}.parquet")]
        if new_base:
            deleted.update(p for p in paths if p not in new_base)
    return deleted


@pytest.mark.parametrize("version", [6, 8])
def test_older_slice_with_its_logs_is_deleted_and_hudi_reads_the_same(tmp_path: Path, version: int) -> None:
    root, compaction = compacted_table(tmp_path, version)
    one_version = CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1)
    spec = TableSpec.of(name="t", path=str(root), manifest="t.yml", line=1, clean=one_version)
    built = build_plan("p", "dev", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc))
    node = built.plan.tables[0].nodes[0]
    planned = files_to_delete(node)

    expected = expected_deletions(root, compaction)
    assert any(".log." in p for p in expected)
    assert planned == expected

    before = (oracle.snapshot_rows(root), oracle.snapshot_rows(root, as_of=compaction))
    for path in planned:
        os.remove(root / path)
    assert (oracle.snapshot_rows(root), oracle.snapshot_rows(root, as_of=compaction)) == before
