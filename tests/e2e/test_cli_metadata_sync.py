"""``metadata_table: sync`` (the default for table versions 8 and 9) through the CLI on copies
of real tables with a metadata table: plan says per node what it writes into the metadata
table, apply keeps it in step, and afterwards ``hudi`` (which lists files through the metadata
table) reads exactly the rows it read before and the ``files`` check passes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.canonical import compute_plan_id
from maintainer.artifact.directory import SIGNATURE_FIELD
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.payloads import decode_clean_metadata
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.fixtures import FixtureTable, metadata_fixture_names
from tests.support.metadata_tables import (
    FILE_NAME,
    MOR_V9,
    MOR_WITH_LOGS,
    SETTINGS,
    TRIPS_V8,
    Project,
    applied_in_step,
    assert_metadata_in_step,
    fail_last_deltacommit,
    only,
    planned_synced_node,
    retained_reads,
    without_metadata_table,
)

pytestmark = pytest.mark.fixtures
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
META += FILE_NAME
OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)


@pytest.fixture
def make_project(
    project: Callable[[Path, str], Path], monkeypatch: pytest.MonkeyPatch
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    return lambda table, services: Project(project(table, services), table)


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_a_savepoint_on_a_table_with_a_metadata_table_writes_nothing_into_it(
    name: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(name).path
    commit = oracle.completed_commit_times(path)[-1]
    before = oracle.snapshot_rows(path)
    project = make_project(path, f"{OFF}\nsavepoints: {{instants: ['{commit}']}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.savepoint_create"]
    assert node["status"] == "changes"
    assert node["actions"][-1]["kind"] == "sync_metadata_table"
    assert node["actions"][-1]["reason"].startswith("nothing: Hudi writes nothing into the metadata table")
    assert project.cli("apply") == 0, project.results()
    assert (path / ".hoodie" / "metadata").is_dir()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == before


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_a_rollback_rolls_back_the_metadata_deltacommit_too(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    failed = fail_last_deltacommit(path)
    project = make_project(path, only("rollback"))
    sync = planned_synced_node(project, "rollback")["actions"][-1]
    assert sync["reason"].startswith(f"roll back its deltacommit {failed} with the rollback's instant time")
    rollback = applied_in_step(project, tmp_path)["t.rollback"]["adapter_response"]["rollbacks"][0]

    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert not list(mdt_timeline.glob(f"{failed}*"))
    assert len(list(mdt_timeline.glob(f"{rollback}_*.rollback"))) == 1
    assert not list((path / ".hoodie" / "metadata").glob(f"*/.*_{failed}.log.*"))
    assert oracle.snapshot_rows(path) == oracle.snapshot_rows(without_metadata_table(path, tmp_path))


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_archival_stops_before_the_metadata_tables_latest_compaction(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None and mdt.latest_compaction is not None
    bound = mdt.latest_compaction.timestamp
    retained = [t for t in oracle.completed_commit_times(path) if t >= bound]
    before = {t: oracle.snapshot_rows(path, as_of=t) for t in retained}
    latest = oracle.snapshot_rows(path)
    project = make_project(path, only("archive"))
    node = planned_synced_node(project, "archive")
    archived = [a["target"] for a in node["actions"][:-1]]
    assert archived and all(t < bound for t in archived)
    applied_in_step(project, tmp_path)
    assert oracle.snapshot_rows(path) == latest
    for instant, rows in before.items():
        assert oracle.snapshot_rows(path, as_of=instant) == rows


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8, "sample_table_cow_v9_txns_simple_meta"])
def test_a_clean_writes_its_deletes_into_the_metadata_table(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    latest = oracle.snapshot_rows(path)
    project = make_project(path, only("clean"))
    node = planned_synced_node(project, "clean")
    assert "files" in node["actions"][-1]["partitions"]
    retained_from = node["effect"]["earliest_commit_to_retain"]
    before = retained_reads(path, retained_from)
    clean = applied_in_step(project, tmp_path)["t.clean"]["adapter_response"]["cleans"][0]
    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert len(list(mdt_timeline.glob(f"{clean}_*.deltacommit"))) == 1
    assert oracle.snapshot_rows(path) == latest
    assert retained_reads(path, retained_from) == before


@pytest.mark.parametrize("name", MOR_WITH_LOGS)
def test_a_compaction_writes_its_base_files_and_statistics_into_the_metadata_table(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    latest = oracle.snapshot_rows(path, drop=FILE_NAME)
    history = retained_reads(path, "0")
    project = make_project(path, only("compaction"))
    planned_synced_node(project, "compaction")
    (compaction,) = applied_in_step(project, tmp_path)["t.compaction"]["adapter_response"]["compactions"]
    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert len(list(mdt_timeline.glob(f"{compaction}_*.deltacommit"))) == 1
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest
    after = retained_reads(path, "0")
    assert (
        oracle.rows_of({k: v for k, v in r.items() if k != FILE_NAME[0]} for r in after.pop(compaction))
        == latest
    )
    assert after == history


EVERY_SERVICE = (
    "rollback: {min_age: 0s}\ncompaction: {trigger: {max_delta_commits: 1}}\n"
    "clean: {commits_retained: 1}\narchive: {keep_min_commits: 2, keep_max_commits: 3}"
)


@pytest.mark.parametrize("name", metadata_fixture_names())
def test_every_service_with_the_default_policy_on_every_fixture_with_a_metadata_table(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    latest = oracle.snapshot_rows(path, drop=FILE_NAME)
    commits = oracle.completed_commit_times(path)
    history = {t: oracle.snapshot_rows(path, as_of=t, drop=FILE_NAME) for t in commits}
    project = make_project(path, EVERY_SERVICE)
    assert project.cli("plan") == 0
    nodes = project.nodes()
    for node in nodes.values():
        lance = any("Lance" in reason for reason in node["reasons"])  # not rewritten (known limit)
        assert node["status"] != "blocked" or lance, (node["service"], node["reasons"])
        if node["status"] == "changes" and node["service"] != "metadata":  # it keeps the table itself
            assert node["actions"][-1]["kind"] == "sync_metadata_table", node["service"]
    applied_in_step(project, tmp_path)
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest
    clean = nodes["t.clean"]
    retained_from = (clean.get("effect") or {}).get("earliest_commit_to_retain") or "0"
    for instant in oracle.completed_commit_times(path):
        if instant >= retained_from and instant in history:
            assert oracle.snapshot_rows(path, as_of=instant, drop=FILE_NAME) == history[instant], instant


def test_a_metadata_table_damaged_after_the_plan_fails_the_node_before_its_first_write(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(MOR_V9).path
    project = make_project(path, only("clean"))
    assert project.cli("plan") == 0
    log = max((path / ".hoodie" / "metadata" / "files").glob(".files-*"), key=lambda p: p.name)
    data = bytearray(log.read_bytes())
    start = data.index(b"DATABLK*")
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"
    log.write_bytes(bytes(data))
    timeline = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    files = sorted(str(p) for p in path.rglob("*.parquet"))
    assert project.cli("apply") == 1
    assert log.name in project.results()["t.clean"]["message"]
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == timeline
    assert sorted(str(p) for p in path.rglob("*.parquet")) == files


def _corrupt_first_data_block(log: Path) -> None:
    """Overwrite 4 bytes inside the first HFile data block's compressed content."""
    data = bytearray(log.read_bytes())
    start = data.index(b"DATABLK*")
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"
    log.write_bytes(bytes(data))


@pytest.mark.parametrize("name", MOR_WITH_LOGS)
def test_a_corrupt_column_stats_block_fails_the_compaction_before_its_first_write(
    name: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    """A compaction's sync writes column_stats (and partition_stats from it): a damaged
    column_stats log block is found when apply reads the partitions the node updates, before
    any base file or instant is written. The error names the file and says to drop the metadata
    table."""
    path = fixture_copy(name).path
    project = make_project(path, only("compaction"))
    planned_synced_node(project, "compaction")
    logs = (path / ".hoodie" / "metadata" / "column_stats").glob(".*.log.*")
    log = max(logs, key=lambda p: p.name.split("_")[1])
    _corrupt_first_data_block(log)
    timeline = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if ".hoodie" not in p.parts)
    metadata = sorted(str(p.relative_to(path)) for p in (path / ".hoodie" / "metadata").rglob("*"))
    assert project.cli("apply") == 1
    message = project.results()["t.compaction"]["message"]
    assert log.name in message and "column_stats" in message and "metadata_table: drop" in message
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == timeline
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*") if ".hoodie" not in p.parts) == files
    assert sorted(str(p.relative_to(path)) for p in (path / ".hoodie" / "metadata").rglob("*")) == metadata


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_every_service_on_a_generated_table_with_a_metadata_table(
    table_type: str, make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    """datagen's metadata table (v8, ``files``) is kept in sync by every service, a failed
    write included; hudi reads the rows the generator says, and time travel to retained
    instants still works."""
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=8, rows_per_commit=20, seed=8)
    spec = DatagenSpec("t", table_type, 8, workload, failed_write_at=5, metadata_table=True)
    generated = generate(str(tmp_path / "lake" / "t"), spec)
    path = tmp_path / "lake" / "t"
    project = make_project(path, EVERY_SERVICE)
    assert project.cli("plan") == 0
    nodes = project.nodes()
    assert all(n["status"] != "blocked" for n in nodes.values()), nodes
    assert nodes["t.rollback"]["status"] == "changes"
    assert nodes["t.rollback"]["actions"][-1]["kind"] == "sync_metadata_table"
    applied_in_step(project, tmp_path)
    latest = oracle.rows_of(generated.expected[generated.completed[-1]])
    assert oracle.snapshot_rows(path, drop=META) == latest
    retained_from = (nodes["t.clean"].get("effect") or {}).get("earliest_commit_to_retain") or "0"
    for instant in oracle.completed_commit_times(path):
        if instant >= retained_from and instant in generated.expected:
            assert oracle.snapshot_rows(path, as_of=instant, drop=META) == oracle.rows_of(
                generated.expected[instant]
            )


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda node: node["actions"].pop(), id="sync-action-removed"),
        pytest.param(lambda node: node["actions"][-1].update(target="../other"), id="sync-target-elsewhere"),
        pytest.param(
            lambda node: node["actions"][-1].update(partitions=["vector_index"]), id="unknown-partition"
        ),
    ],
)
def test_an_edited_metadata_action_is_refused_and_nothing_is_written(
    edit: Callable[[dict[str, Any]], object],
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """An attacker edits plan.json (the plan id recomputed): the clean without its metadata
    update, or with one pointed elsewhere. Apply refuses; the table is as it was."""
    path = fixture_copy(MOR_V9).path
    project = make_project(path, only("clean"))
    planned_synced_node(project, "clean")
    plan_file = project.root / "target" / "plan" / "plan.json"
    data = json.loads(plan_file.read_text())
    (node,) = [n for t in data["tables"] for n in t["nodes"] if n["service"] == "clean"]
    edit(node)
    body = {k: v for k, v in data.items() if k not in ("plan_id", "payloads", SIGNATURE_FIELD)}
    data["plan_id"] = compute_plan_id(body)
    plan_file.write_text(json.dumps(data, indent=2))
    before = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
    assert project.cli("apply") == 1
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == before


def test_a_file_the_metadata_table_lists_but_storage_lost_is_cleaned_and_tombstoned(
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Planning lists from the metadata table; apply lists storage again and finds a planned
    file lost behind Hudi's back. As Hudi's cleaner (deleting a missing file counts as done),
    the clean records it as deleted and its metadata deltacommit tombstones it: no drift, and
    ``inspect --check-metadata`` is clean afterwards."""
    path = fixture_copy(MOR_V9).path
    project = make_project(path, only("clean"))
    node = planned_synced_node(project, "clean")
    planned = [a["target"] for a in node["actions"] if a["kind"] == "delete_file"]
    gone = planned[0]
    (path / gone).unlink()
    assert project.cli("apply") == 0, project.results()
    result = project.results()["t.clean"]
    assert result["drift"] == []
    assert result["adapter_response"]["files_deleted"] == len(planned)
    (clean,) = result["adapter_response"]["cleans"]
    (completed,) = (path / ".hoodie" / "timeline").glob(f"{clean}_*.clean")
    metadata = decode_clean_metadata(completed.read_bytes(), str(completed))
    assert metadata is not None and metadata.partition_metadata is not None
    partition, _, name = gone.rpartition("/")
    assert name in metadata.partition_metadata[partition].success_delete_files
    capsys.readouterr()
    assert main(["inspect", str(path), "--check-metadata"]) == 0, capsys.readouterr().out
    assert_metadata_in_step(path)
