"""A clustering Hudi scheduled and left pending is executed by ``maintainer`` (as Hudi runs a
pending clustering first): the v9 fixtures ran ``CALL run_clustering``; a copy with the
clustering's completed ``replacecommit`` removed is the table as a crash of Hudi's clustering
before its commit leaves it (requested and inflight on the timeline, its output files written).
``plan`` says the pending clustering is executed and schedules nothing new; ``apply`` rolls back
the partial attempt and runs Hudi's own requested plan; ``hudi`` then reads the same rows as
the fixture, and the metadata table (where there is one) is in step."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.state import open_table
from tests.support import fixtures as fx
from tests.support import oracle
from tests.support.metadata_tables import SETTINGS, Project, assert_metadata_in_step

pytestmark = pytest.mark.fixtures

NAME = ("_hoodie_file_name",)
OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)
CLUSTER = "clustering: {max_commits: 0}"


@pytest.fixture
def make_project(local_project: Callable[[Path, str], Project]) -> Callable[[Path, str], Project]:
    """In process (``engine: local``): no JVM (the content test runs a clustering on Spark, as
    ``engine: auto`` does)."""
    return local_project


def _with_hudis_clustering_pending(source: Path, into: Path) -> str:
    """A copy of ``source`` whose last clustering lost its completed file; returns its instant."""
    shutil.copytree(source, into)
    timeline = into / ".hoodie" / "timeline"
    (requested,) = sorted(timeline.glob("*.clustering.requested"))
    instant = requested.name.split(".")[0]
    (completed,) = timeline.glob(f"{instant}_*.replacecommit")
    completed.unlink()
    return instant


def _files(path: Path) -> dict[str, bytes]:
    """The table's data files and timeline (locks and heartbeats left out)."""
    timeline = path / ".hoodie" / "timeline"
    data = [p for p in path.rglob("*") if p.is_file() and ".hoodie" not in p.relative_to(path).parts]
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in [*data, *timeline.glob("*.*")]}


@pytest.mark.parametrize(
    "name",
    [
        "sample_table_mor_avro_v9_txns_simple_nometa",
        "sample_table_cow_v9_txns_nonpart_nometa",
        "sample_table_mor_avro_v9_txns_complex_meta",
    ],
)
def test_hudis_pending_clustering_is_executed(
    name: str,
    fixture_table: Callable[[str], fx.FixtureTable],
    make_project: Callable[[Path, str], Project],
    tmp_path: Path,
) -> None:
    fixture = fixture_table(name)
    rows = oracle.snapshot_rows(fixture.path, drop=NAME)
    path = tmp_path / "lake" / "t"
    instant = _with_hudis_clustering_pending(fixture.path, path)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0
    node = project.nodes()["t.clustering"]
    kinds = [a["kind"] for a in node["actions"] if a["kind"] != "sync_metadata_table"]
    assert kinds == ["execute_pending_clustering"]
    assert node["actions"][0]["target"] == instant
    assert project.cli("apply") == 0, project.results()
    timeline = open_table(str(path)).snapshot.timeline
    done = [i for i in timeline.completed() if i.action is Action.CLUSTERING]
    assert instant in {i.timestamp for i in done}
    assert any(i.action is Action.ROLLBACK for i in timeline.completed())
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    if name.endswith("_meta"):
        assert_metadata_in_step(path)


def test_a_pending_clustering_changed_after_the_plan_is_refused(
    fixture_table: Callable[[str], fx.FixtureTable],
    make_project: Callable[[Path, str], Project],
    tmp_path: Path,
) -> None:
    fixture = fixture_table("sample_table_mor_avro_v9_txns_simple_nometa")
    path = tmp_path / "lake" / "t"
    instant = _with_hudis_clustering_pending(fixture.path, path)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0
    requested = path / ".hoodie" / "timeline" / f"{instant}.clustering.requested"
    metadata = payloads.decode_requested_replace_metadata(requested.read_bytes(), str(requested))
    assert metadata is not None and metadata.clustering_plan is not None
    groups = metadata.clustering_plan.input_groups or ()
    fewer = replace(metadata.clustering_plan, input_groups=groups[:-1])
    requested.write_bytes(payloads.encode_avro(replace(metadata, clustering_plan=fewer)))
    before = _files(path)
    assert project.cli("apply") == 1
    assert _files(path) == before
    (result,) = project.results().values()
    assert "changed after the plan was made" in result["message"]
