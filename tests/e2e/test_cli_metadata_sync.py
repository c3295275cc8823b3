"""``metadata_table: sync`` (the default for table versions 8 and 9) through the CLI on copies
of real tables with a metadata table: plan says per node what it writes into the metadata
table, apply keeps it in step, and afterwards ``hudi`` (which lists files through the metadata
table) reads exactly the rows it read before and the ``files`` check passes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.hudi.loading import open_table
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.services.base import FAULT_ENV
from tests.support import artifacts, oracle
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


@dataclass(frozen=True)
class Project:
    root: Path
    table: Path

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def nodes(self) -> dict[str, dict[str, Any]]:
        plan = artifacts.plan_json(self.root / "target" / "plan")
        return {f"{n['table']}.{n['service']}": n for t in plan["tables"] for n in t["nodes"]}

    def results(self) -> dict[str, dict[str, Any]]:
        data = json.loads((self.root / "target" / "run_results.json").read_text())
        return {n["id"]: n for n in data["nodes"]}


@pytest.fixture
def make_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(table: Path, services: str) -> Project:
        root = tmp_path / "project"
        assert main(["init", str(root)]) == 0
        body = "\n    ".join(services.splitlines())
        manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n    {body}\n"
        (root / "tables" / "example.yml").write_text(manifest)
        return Project(root, table)

    return make


def assert_metadata_in_step(path: Path) -> None:
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    check = check_metadata_table(table, mdt)
    assert check.problems() == []


OFF = "\n".join(f"{s}: {{enabled: false}}" for s in ("clean", "archive", "rollback", "compaction"))


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


def without_metadata_table(source: Path, into: Path) -> Path:
    """A copy of the table with its metadata table removed (readers then list storage)."""
    copy = into / "no_mdt" / source.name
    shutil.copytree(source, copy)
    shutil.rmtree(copy / ".hoodie" / "metadata")
    properties = copy / ".hoodie" / "hoodie.properties"
    lines = properties.read_text(encoding="latin-1").splitlines()
    kept = [line for line in lines if not line.startswith("hoodie.table.metadata.partitions")]
    properties.write_text("\n".join(kept) + "\n", encoding="latin-1")
    return copy


def fail_last_deltacommit(path: Path) -> str:
    """Turn the table's last completed deltacommit into a failed write: its completed file goes
    (its metadata deltacommit stays completed, as when a writer dies between the two)."""
    completed = sorted((path / ".hoodie" / "timeline").glob("2*_*.deltacommit"))[-1]
    completed.unlink()
    return completed.name.split("_")[0]


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_a_rollback_rolls_back_the_metadata_deltacommit_too(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    failed = fail_last_deltacommit(path)
    services_off = "\n".join(f"{s}: {{enabled: false}}" for s in ("clean", "archive", "compaction"))
    project = make_project(path, services_off)
    assert project.cli("plan") == 0
    node = project.nodes()["t.rollback"]
    assert node["status"] == "changes"
    sync = node["actions"][-1]
    assert sync["kind"] == "sync_metadata_table"
    assert sync["reason"].startswith(f"roll back its deltacommit {failed} with the rollback's instant time")
    assert project.cli("apply") == 0, project.results()
    rollback = project.results()["t.rollback"]["effects"]["rollbacks"][0]

    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert not list(mdt_timeline.glob(f"{failed}*"))
    assert len(list(mdt_timeline.glob(f"{rollback}_*.rollback"))) == 1
    assert not list((path / ".hoodie" / "metadata").glob(f"*/.*_{failed}.log.*"))
    assert_metadata_in_step(path)
    reference = without_metadata_table(path, tmp_path)
    assert oracle.snapshot_rows(path) == oracle.snapshot_rows(reference)
    assert oracle.file_slices(path) == oracle.file_slices(reference)


ROLLBACK_CRASHES = ["after_requested", "after_deletes", "after_metadata_table", "after_completed"]


@pytest.mark.parametrize("fault", [f"rollback:{point}" for point in ROLLBACK_CRASHES])
def test_a_crash_during_a_synced_rollback_is_recovered_by_the_next_apply(
    fault: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = fixture_copy(MOR_V9).path
    failed = fail_last_deltacommit(path)
    services_off = "\n".join(f"{s}: {{enabled: false}}" for s in ("clean", "archive", "compaction"))
    project = make_project(path, services_off)
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, fault)
    assert project.cli("apply") == 1
    assert fault in project.results()["t.rollback"]["message"]
    reference = without_metadata_table(path, tmp_path)  # as readers see it mid-way: the same rows
    assert oracle.snapshot_rows(path) == oracle.snapshot_rows(reference)

    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("apply") == 0, project.results()
    assert not list((path / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob(f"{failed}*"))
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == oracle.snapshot_rows(reference)


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_archival_stops_before_the_metadata_tables_latest_compaction(
    name: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(name).path
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None and mdt.latest_compaction is not None
    bound = mdt.latest_compaction.timestamp
    retained = [t for t in oracle.completed_commit_times(path) if t >= bound]
    before = {t: oracle.snapshot_rows(path, as_of=t) for t in retained}
    latest = oracle.snapshot_rows(path)
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("clean", "rollback", "compaction"))
    project = make_project(path, f"{off}\narchive: {{keep_min_commits: 1, keep_max_commits: 2}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.archive"]
    assert node["status"] == "changes", node["reasons"]
    assert node["actions"][-1]["kind"] == "sync_metadata_table"
    archived = [a["target"] for a in node["actions"][:-1]]
    assert archived and all(t < bound for t in archived)
    assert project.cli("apply") == 0, project.results()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == latest
    for instant, rows in before.items():
        assert oracle.snapshot_rows(path, as_of=instant) == rows


def retained_reads(path: Path, since: str) -> dict[str, list[dict[str, Any]]]:
    return {t: oracle.snapshot_rows(path, as_of=t) for t in oracle.completed_commit_times(path) if t >= since}


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8, "sample_table_cow_v9_txns_simple_meta"])
def test_a_clean_writes_its_deletes_into_the_metadata_table(
    name: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    tmp_path: Path,
) -> None:
    path = fixture_copy(name).path
    latest = oracle.snapshot_rows(path)
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("archive", "rollback", "compaction"))
    project = make_project(path, f"{off}\nclean: {{commits_retained: 1}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.clean"]
    assert node["status"] == "changes", node["reasons"]
    sync = node["actions"][-1]
    assert sync["kind"] == "sync_metadata_table" and "files" in sync["partitions"]
    retained_from = node["effect"]["earliest_commit_to_retain"]
    before = retained_reads(path, retained_from)
    assert project.cli("apply") == 0, project.results()
    clean = project.results()["t.clean"]["effects"]["cleans"][0]
    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert len(list(mdt_timeline.glob(f"{clean}_*.deltacommit"))) == 1
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == latest
    reference = without_metadata_table(path, tmp_path)
    assert oracle.file_slices(path) == oracle.file_slices(reference)
    assert retained_reads(path, retained_from) == before


@pytest.mark.parametrize("point", ["after_inflight", "after_deletes", "after_metadata_table"])
def test_a_crash_during_a_synced_clean_is_recovered_by_the_next_apply(
    point: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = fixture_copy(MOR_V9).path
    latest = oracle.snapshot_rows(path)
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("archive", "rollback", "compaction"))
    project = make_project(path, f"{off}\nclean: {{commits_retained: 1}}")
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"clean:{point}")
    assert project.cli("apply") == 1
    assert oracle.snapshot_rows(path) == latest  # readable mid-way
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("apply") == 0, project.results()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == latest
    assert oracle.file_slices(path) == oracle.file_slices(without_metadata_table(path, tmp_path))


MOR_WITH_LOGS = [TRIPS_V8, "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle"]
"""Merge-on-read fixtures with a metadata table whose latest slices have log files to compact."""
FILE_NAME = ["_hoodie_file_name"]


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
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("archive", "rollback", "clean"))
    project = make_project(path, f"{off}\ncompaction: {{trigger: {{max_delta_commits: 1}}}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.compaction"]
    assert node["status"] == "changes", node["reasons"]
    assert node["actions"][-1]["kind"] == "sync_metadata_table"
    assert project.cli("apply") == 0, project.results()
    (compaction,) = project.results()["t.compaction"]["effects"]["compactions"]
    mdt_timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert len(list(mdt_timeline.glob(f"{compaction}_*.deltacommit"))) == 1
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest
    assert oracle.file_slices(path) == oracle.file_slices(without_metadata_table(path, tmp_path))
    after = retained_reads(path, "0")
    assert (
        oracle.rows_of({k: v for k, v in r.items() if k != FILE_NAME[0]} for r in after.pop(compaction))
        == latest
    )
    assert after == history


@pytest.mark.parametrize("point", ["after_inflight", "before_commit", "after_metadata_table"])
def test_a_crash_during_a_synced_compaction_is_recovered_by_the_next_apply(
    point: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = fixture_copy(MOR_WITH_LOGS[1]).path
    latest = oracle.snapshot_rows(path, drop=FILE_NAME)
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("archive", "rollback", "clean"))
    project = make_project(path, f"{off}\ncompaction: {{trigger: {{max_delta_commits: 1}}}}")
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    assert project.cli("apply") == 1
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest  # readable mid-way
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("apply") == 0, project.results()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest
    assert oracle.file_slices(path) == oracle.file_slices(without_metadata_table(path, tmp_path))


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
        if node["status"] == "changes":
            assert node["actions"][-1]["kind"] == "sync_metadata_table", node["service"]
    assert project.cli("apply") == 0, project.results()

    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == latest
    assert oracle.file_slices(path) == oracle.file_slices(without_metadata_table(path, tmp_path))
    clean = nodes["t.clean"]
    retained_from = (clean.get("effect") or {}).get("earliest_commit_to_retain") or "0"
    for instant in oracle.completed_commit_times(path):
        if instant >= retained_from and instant in history:
            assert oracle.snapshot_rows(path, as_of=instant, drop=FILE_NAME) == history[instant], instant


def test_a_metadata_table_damaged_after_the_plan_fails_the_node_before_its_first_write(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(MOR_V9).path
    off = "\n".join(f"{s}: {{enabled: false}}" for s in ("archive", "rollback", "compaction"))
    project = make_project(path, f"{off}\nclean: {{commits_retained: 1}}")
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
