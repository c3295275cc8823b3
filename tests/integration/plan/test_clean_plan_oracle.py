"""The clean plan deletes exactly what Hudi's cleaner would, on generated tables with many
commits: checked against an independent computation from the raw listing and timeline, and
after deleting exactly the planned files (by hand) hudi still reads the same latest snapshot
and the same time travel to every retained commit (instants at or after the ECTR)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import wall_clock_in_timezone
from maintainer.hudi.table.snapshot import load_config
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.storage import Storage
from tests.integration.plan import cleantables as ct
from tests.support import oracle
from tests.support.plans import clean_effect_of, files_to_delete

NOW = datetime.now(timezone.utc)
RETAINED = 3
HOURS = 5


def spec_for(path: str, name: str, **clean: object) -> TableSpec:
    options = CleanSpec.model_validate({"commits_retained": RETAINED, **clean})
    return TableSpec.of(name=name, path=path, manifest="tables/t.yml", line=1, clean=options)


def plan_clean(path: str, name: str = "t", **clean: object) -> tuple[NodePlan, dict[str, bytes], str]:
    built = build_plan("p", "dev", [TableRequest(spec_for(path, name, **clean), ("clean",))], {}, NOW)
    assert not built.errors
    return built.plan.tables[0].nodes[0], dict(built.payloads), built.plan_id


def planned_paths(node: NodePlan) -> set[str]:
    return files_to_delete(node)


def reads(path: str, instants: list[str]) -> dict[str | None, list[dict[str, object]]]:
    result: dict[str | None, list[dict[str, object]]] = {None: oracle.snapshot_rows(path)}
    for instant in instants:
        result[instant] = oracle.snapshot_rows(path, as_of=instant)
    return result


CASES = [
    pytest.param("cow", 6, False, id="cow-v6"),
    pytest.param("cow", 8, False, id="cow-v8"),
    pytest.param("mor", 8, False, id="mor-v8"),
    pytest.param("mor", 6, False, id="mor-v6"),
    pytest.param("cow", 6, True, id="cow-v6-failed-write"),
]


@pytest.mark.parametrize(("kind", "version", "failed"), CASES)
def test_planned_files_are_hudis_and_hudi_reads_the_same_after_deleting_them(
    tmp_path: Path, kind: str, version: int, failed: bool
) -> None:
    table = ct.make_table(tmp_path, kind, version, commits=15, failed=failed)
    root = Path(table.path)
    node, payload_files, plan_id = plan_clean(table.path)

    ectr = ct.expected_ectr(root, RETAINED)
    assert clean_effect_of(node).earliest_commit_to_retain == ectr
    expected = ct.expected_cow_deletions(root, RETAINED)
    assert planned_paths(node) == expected
    if kind == "cow":
        assert expected, "the table must give the cleaner work"
        assert node.status is NodeStatus.CHANGES
        decoded = payloads.decode_cleaner_plan(payload_files["t.clean.requested"], "payload")
        assert decoded is not None and decoded.extra_metadata is not None
        assert decoded.extra_metadata["maintainer.plan_id"] == plan_id
        in_payload = {
            f"{part}/{info.file_path.rsplit('/', 1)[-1]}"
            for part, infos in (decoded.file_paths_to_be_deleted_per_partition or {}).items()
            for info in infos
            if info.file_path
        }
        assert in_payload == expected
    else:
        assert node.status is NodeStatus.NO_OP  # datagen never compacts: one slice per group

    assert ectr is not None
    retained = [c for c in ct.completed_commits(root) if c >= ectr]
    before = reads(table.path, retained)
    for path in planned_paths(node):
        os.remove(root / path)
    assert reads(table.path, retained) == before


def test_incremental_plan_scans_only_partitions_written_since_the_last_clean(tmp_path: Path) -> None:
    table = ct.make_table(tmp_path, "cow", 6, commits=15, partitions=20, rows=4)
    root = Path(table.path)
    commits = ct.completed_commits(root)
    previous_ectr = commits[9]
    ct.write_completed_clean(table.path, previous_ectr, savepointed="")
    node, _, _ = plan_clean(table.path)

    new_ectr = commits[len(commits) - RETAINED]
    window = [c for c in commits if previous_ectr <= c < new_ectr]
    written = {
        str(Path(dirpath).relative_to(root))
        for dirpath, _dirs, files in os.walk(root)
        for name in files
        if any(name.endswith(f"_{instant}.parquet") for instant in window)
    }
    assert clean_effect_of(node).scan == "incremental"
    assert 0 < len(written) < 20
    expected = {p for p in ct.expected_cow_deletions(root, RETAINED) if p.rsplit("/", 1)[0] in written}
    assert planned_paths(node) == expected


def test_full_scan_when_incremental_is_off_finds_every_partition(tmp_path: Path) -> None:
    table = ct.make_table(tmp_path, "cow", 6, commits=15, partitions=20, rows=4)
    root = Path(table.path)
    ct.write_completed_clean(table.path, ct.completed_commits(root)[9], savepointed="")
    node, _, _ = plan_clean(table.path, incremental=False)
    assert clean_effect_of(node).scan == "full"
    assert planned_paths(node) == ct.expected_cow_deletions(root, RETAINED)


def test_savepointed_files_are_kept_and_time_travel_to_the_savepoint_still_reads(tmp_path: Path) -> None:
    table = ct.make_table(tmp_path, "cow", 6, commits=15)
    root = Path(table.path)
    savepoint = ct.completed_commits(root)[5]
    kept = ct.write_savepoint(table.path, savepoint)
    node, payload_files, _ = plan_clean(table.path)

    expected = ct.expected_cow_deletions(root, RETAINED) - kept
    assert planned_paths(node) == expected
    assert expected and kept & ct.expected_cow_deletions(root, RETAINED)
    assert clean_effect_of(node).savepointed_timestamps == (savepoint,)
    decoded = payloads.decode_cleaner_plan(payload_files["t.clean.requested"], "payload")
    assert decoded is not None and decoded.extra_metadata is not None
    assert decoded.extra_metadata["savepointed_timestamps"] == savepoint

    before = oracle.snapshot_rows(table.path, as_of=savepoint)
    for path in planned_paths(node):
        os.remove(root / path)
    assert oracle.snapshot_rows(table.path, as_of=savepoint) == before


def test_keep_latest_file_versions_keeps_the_newest_versions_of_every_group(tmp_path: Path) -> None:
    table = ct.make_table(tmp_path, "cow", 8, commits=10)
    root = Path(table.path)
    node, _, _ = plan_clean(table.path, policy="keep_latest_file_versions", file_versions_retained=2)
    expected = ct.expected_version_deletions(root, 2)
    assert expected and planned_paths(node) == expected
    assert clean_effect_of(node).earliest_commit_to_retain is None and clean_effect_of(node).scan == "full"
    last_two = ct.completed_commits(root)[-1:]
    before = reads(table.path, last_two)
    for path in planned_paths(node):
        os.remove(root / path)
    assert reads(table.path, last_two) == before


def test_keep_latest_by_hours_retains_the_commits_of_the_last_hours(tmp_path: Path) -> None:
    start = datetime.now(timezone.utc) - timedelta(hours=20)
    ticks = iter(range(10_000))

    def clock() -> datetime:  # an hour per call (about one per commit): commits over ~18 hours
        return start + timedelta(hours=next(ticks))

    workload = WorkloadSpec(partitions=2, file_groups=2, commits=15, rows_per_commit=20)
    spec = DatagenSpec(name="hours", table_type="cow", table_version=6, workload=workload)
    table = generate(str(tmp_path / "hours"), spec, clock=clock)
    root = Path(table.path)
    commits = ct.completed_commits(root)
    tz = load_config(Storage(table.path)).timeline_timezone  # instant times are wall clock in it
    cutoff = (wall_clock_in_timezone(NOW, tz) - timedelta(hours=HOURS)).strftime("%Y%m%d%H%M%S")
    within = [c for c in commits if c[:14] >= cutoff]
    assert within and within[0] != commits[0], "the workload must straddle the cutoff"
    node, _, _ = plan_clean(table.path, policy="keep_latest_by_hours", hours_retained=HOURS)
    assert clean_effect_of(node).earliest_commit_to_retain == within[0]
    expected = ct.deletions_before(root, within[0])
    assert expected and planned_paths(node) == expected
    before = reads(table.path, within)
    for path in planned_paths(node):
        os.remove(root / path)
    assert reads(table.path, within) == before
