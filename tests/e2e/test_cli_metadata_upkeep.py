"""The metadata table's own upkeep through the CLI (the ``metadata`` node): plan says how many
deltacommits have completed since its last compaction and whether one is due, apply compacts
it as Hudi's metadata writer would, and afterwards ``hudi`` reads exactly the rows it read
before (through the metadata table, and without it) and ``--check-metadata`` passes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.hfile import read_hfile
from maintainer.hudi.metadata.compaction_plan import deltacommits_since_compaction, last_compaction
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.state import open_table
from tests.e2e.test_cli_hardening_plan import rewrite_plan
from tests.support import oracle
from tests.support.fixtures import FixtureTable
from tests.support.metadata_tables import MOR_V9, SETTINGS, TRIPS_V8, Project, assert_metadata_in_step

pytestmark = pytest.mark.fixtures
OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)


@pytest.fixture
def make_project(
    bare_project: Callable[[Path, str], Path], monkeypatch: pytest.MonkeyPatch
) -> Callable[[Path, str], Project]:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    return lambda table, services: Project(bare_project(table, services), table)


def _mdt_timeline(path: Path):  # type: ignore[no-untyped-def]
    mdt = open_metadata_table(open_table(str(path), partitions=(), verify=False))
    assert mdt is not None
    return mdt.state.snapshot.timeline


@pytest.mark.parametrize("name", [MOR_V9, "sample_table_cow_v9_txns_complex_meta"])
def test_apply_compacts_the_metadata_table_when_its_deltacommits_reach_the_trigger(
    name: str, make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(name).path
    before_rows = oracle.snapshot_rows(path)
    since = deltacommits_since_compaction(_mdt_timeline(path))
    project = make_project(path, f"{OFF}\nmetadata: {{compact_max_delta_commits: {since}}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.metadata"]
    assert node["status"] == "changes"
    assert node["effect"]["deltacommits_since_compaction"] == since
    (action,) = node["actions"]
    assert action["kind"] == "compact_metadata_table" and action["file_groups"] > 0
    assert f"{since} of {since} metadata deltacommits" in node["reasons"][0]

    assert project.cli("apply") == 0, project.results()
    timeline = _mdt_timeline(path)
    compaction = last_compaction(timeline)
    assert compaction is not None and compaction.timestamp > action["instant"][:14]
    assert deltacommits_since_compaction(timeline) == 0
    metadata = path / ".hoodie" / "metadata"
    written = sorted(metadata.glob(f"*/*_{compaction.timestamp}.hfile"))
    assert written, "no base file written"
    for hfile in written:
        assert read_hfile(hfile.read_bytes(), str(hfile)).meta_blocks[0][0] == "bloomFilter"
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == before_rows

    assert project.cli("plan") == 0  # compacted: nothing due now
    assert project.nodes()["t.metadata"]["status"] == "no_op"


@pytest.mark.parametrize(
    "point", ["metadata_after_requested", "metadata_after_inflight", "metadata_before_commit"]
)
def test_a_crash_mid_compaction_is_finished_by_the_next_apply(
    point: str,
    make_project: Callable[[Path, str], Project],
    fixture_copy: Callable[[str], FixtureTable],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = fixture_copy(MOR_V9).path
    before_rows = oracle.snapshot_rows(path)
    project = make_project(path, f"{OFF}\nmetadata: {{compact_max_delta_commits: 1}}")
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"metadata:{point}")
    assert project.cli("apply") != 0
    pending = _mdt_timeline(path).pending_compactions()
    assert len(pending) == 1
    heartbeat = path / ".hoodie" / "metadata" / ".hoodie" / ".heartbeat" / pending[0].timestamp
    assert heartbeat.exists() == (point != "metadata_after_requested")  # left to expire
    assert oracle.snapshot_rows(path) == before_rows  # readable meanwhile
    assert_metadata_in_step(path)
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("plan") == 0
    assert project.nodes()["t.metadata"]["actions"][0]["pending"] is True
    assert project.cli("apply") == 0, project.results()
    timeline = _mdt_timeline(path)
    assert not timeline.pending_compactions()
    last = last_compaction(timeline)
    assert last is not None and last.timestamp == pending[0].timestamp
    assert not heartbeat.exists()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == before_rows


def test_a_metadata_table_compacted_since_its_last_deltacommits_needs_nothing(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    """Hudi counts the deltacommits requested after the latest compaction: on the v8 fixture
    the last one was requested before it (and completed after), so none counts."""
    path = fixture_copy(TRIPS_V8).path
    project = make_project(path, f"{OFF}\nmetadata: {{}}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.metadata"]
    assert node["status"] == "no_op"
    assert node["effect"]["last_compaction"] == "20251220210130942"
    assert "0 of 10 metadata deltacommits since the last compaction 20251220210130942" in node["reasons"][0]


def test_a_table_without_a_metadata_table_has_no_metadata_node(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy("sample_table_mor_avro_v9_txns_simple_nometa").path
    project = make_project(path, f"{OFF}\nmetadata: {{}}")
    assert project.cli("plan") == 0
    assert "t.metadata" not in project.nodes()


def _edited_with_clean(project: Project, files: list[str]) -> None:
    """The plan edited as an attacker would (plan id recomputed): the metadata node also asks to
    clean ``files`` of the metadata table."""
    data = json.loads((project.root / "target" / "plan" / "plan.json").read_text())
    (node,) = [n for t in data["tables"] for n in t["nodes"] if n["service"] == "metadata"]
    clean = {"kind": "clean_metadata_table", "target": ".hoodie/metadata", "reason": "edited", "files": files}
    node["actions"].insert(0, {**clean, "pending": []})
    rewrite_plan(project.root, data)


def test_an_edited_plan_never_cleans_a_live_metadata_file(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    """A plan is a request: the clean re-derived at apply keeps every file of a live slice, so
    an added ``clean_metadata_table`` of the latest base HFile and log file deletes nothing."""
    path = fixture_copy(MOR_V9).path
    rows = oracle.snapshot_rows(path)
    project = make_project(path, f"{OFF}\nmetadata: {{compact_max_delta_commits: 1}}")
    assert project.cli("plan") == 0
    metadata = path / ".hoodie" / "metadata"
    live = [max(metadata.glob("files/*.hfile")), max(metadata.glob("files/.files-*"))]
    _edited_with_clean(project, [p.relative_to(metadata).as_posix() for p in live])
    assert project.cli("apply") == 2  # applied, with the edited deletions as drift
    assert all(p.exists() for p in live)
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path) == rows


def test_an_edited_plan_with_a_path_out_of_the_metadata_table_is_refused_before_any_write(
    make_project: Callable[[Path, str], Project], fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = fixture_copy(MOR_V9).path
    project = make_project(path, f"{OFF}\nmetadata: {{compact_max_delta_commits: 1}}")
    assert project.cli("plan") == 0
    before = sorted(p.name for p in (path / ".hoodie" / "metadata" / ".hoodie" / "timeline").iterdir())
    _edited_with_clean(project, ["../hoodie.properties"])
    assert project.cli("apply") == 1
    assert (path / ".hoodie" / "hoodie.properties").exists()
    after = sorted(p.name for p in (path / ".hoodie" / "metadata" / ".hoodie" / "timeline").iterdir())
    assert after == before
