"""Clustering through the CLI on generated tables with many small file groups (table versions
6, 8 and 9, copy-on-write and merge-on-read, with and without a metadata table): plan groups the
small slices as Hudi's size-based strategy does, apply rewrites them into the planned number of
new file groups sorted by the sort columns, ``hudi`` reads exactly the same rows (and time
travels to the instants before), the metadata table stays in step, and the clean then removes
the replaced file groups with the rows unchanged. A crash at each step of the executor is
finished by the next plan and apply."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from maintainer.artifact.canonical import compute_plan_id
from maintainer.artifact.directory import PAYLOAD_DIR, PAYLOAD_HASHES_FIELD, PLAN_FILE, SIGNATURE_FIELD
from maintainer.artifact.model import read_body
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.state import open_table
from maintainer.services.clustering.node import clustering_payloads
from maintainer.storage import Storage
from tests.support import oracle
from tests.support.metadata_tables import SETTINGS, Project, assert_metadata_in_step

NAME = ("_hoodie_file_name",)
"""Rewritten to the new file's name, as Hudi's clustering does; every other column is kept."""
OFF = "\n".join(f"{s}: {{enabled: false}}" for s in SETTINGS)
CLUSTER = "clustering: {max_commits: 0, sort_columns: [rider]}"


@pytest.fixture
def make_project(local_project: Callable[[Path, str], Project]) -> Callable[[Path, str], Project]:
    """In process (``engine: local``): no JVM (the content test runs a clustering on Spark, as
    ``engine: auto`` does)."""
    return local_project


def _small_files_table(
    path: Path, table_type: str, version: int, mdt: bool, partitions: int = 2
) -> list[str]:
    """A table of 2 partitions (0: none) x 6 file groups, written by 3 commits (MOR: updates in
    log files); returns its completed commit times."""
    workload = WorkloadSpec(partitions=partitions, file_groups=6, commits=3, rows_per_commit=120, seed=5)
    generate(str(path), DatagenSpec("t", table_type, version, workload, metadata_table=mdt))
    return oracle.completed_commit_times(path)


def _groups(project: Project) -> list[dict[str, Any]]:
    node = project.nodes()["t.clustering"]
    return [a for a in node["actions"] if a["kind"] == "cluster_group"]


def _clusterings(path: Path) -> list[str]:
    timeline = open_table(str(path)).snapshot.timeline
    return [
        i.timestamp for i in timeline.completed() if i.action in (Action.REPLACE_COMMIT, Action.CLUSTERING)
    ]


def test_a_table_without_partitions_is_clustered(
    make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    path = tmp_path / "lake" / "t"
    _small_files_table(path, "mor", 8, True, partitions=0)
    rows = oracle.snapshot_rows(path, drop=NAME)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0
    (group,) = _groups(project)
    assert group["partition"] == "" and len(group["slices"]) == 6
    assert project.cli("apply") == 0, project.results()
    (instant,) = _clusterings(path)
    assert [p.parent for p in _new_files(path, instant)] == [path]
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    assert_metadata_in_step(path)


def _new_files(path: Path, instant: str) -> list[Path]:
    return sorted(p for p in path.rglob(f"*_{instant}.parquet") if ".hoodie" not in p.parts)


@pytest.mark.parametrize(
    ("table_type", "version", "mdt"),
    [
        ("cow", 6, False),
        ("mor", 6, False),
        ("cow", 8, True),
        ("mor", 8, False),
        ("mor", 8, True),
        ("cow", 9, False),
        ("mor", 9, True),
    ],
    ids=["cow-v6", "mor-v6", "cow-v8-mdt", "mor-v8", "mor-v8-mdt", "cow-v9", "mor-v9-mdt"],
)
def test_small_files_are_clustered_then_cleaned_and_rows_stay(
    table_type: str, version: int, mdt: bool, make_project: Callable[[Path, str], Project], tmp_path: Path
) -> None:
    path = tmp_path / "lake" / "t"
    commits = _small_files_table(path, table_type, version, mdt)
    rows = oracle.snapshot_rows(path, drop=NAME)
    history = {c: oracle.snapshot_rows(path, as_of=c) for c in commits}
    slices_before = oracle.file_slices(path)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0
    groups = _groups(project)
    assert {g["partition"] for g in groups} == {s[0] for s in slices_before}
    planned = {(g["partition"], s["file_id"]) for g in groups for s in g["slices"]}
    assert planned == {(s[0], s[1]) for s in slices_before}
    assert project.cli("apply") == 0, project.results()

    (instant,) = _clusterings(path)
    written = _new_files(path, instant)
    assert len(written) == sum(g["num_output_file_groups"] for g in groups)
    for file in written:
        riders = pq.read_table(file, columns=["rider"]).column("rider").to_pylist()
        assert riders == sorted(riders, key=lambda r: (r is not None, r))
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    assert {c: oracle.snapshot_rows(path, as_of=c) for c in commits} == history
    assert {s[1] for s in oracle.file_slices(path)}.isdisjoint({fid for _, fid in planned})
    if mdt:
        assert_metadata_in_step(path)

    project = make_project(
        path,
        OFF.replace(
            "clean: {enabled: false}", "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}"
        ),
    )
    assert project.cli("plan") == 0
    assert project.cli("apply") == 0, project.results()
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    left = {p.name.split("_")[0] for p in path.rglob("*.parquet") if ".hoodie" not in p.parts}
    assert left.isdisjoint({fid for _, fid in planned})
    if mdt:
        assert_metadata_in_step(path)


@pytest.mark.parametrize(
    "point", ["after_requested", "after_inflight", "before_commit", "after_metadata_table"]
)
def test_a_crash_at_each_step_is_finished_by_the_next_apply(
    point: str, make_project: Callable[[Path, str], Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lake" / "t"
    _small_files_table(path, "mor", 8, True)
    rows = oracle.snapshot_rows(path, drop=NAME)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"clustering:{point}")
    assert project.cli("apply") == 1
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    monkeypatch.delenv(FAULT_ENV)
    assert project.cli("apply") == 0, project.results()
    assert len(_clusterings(path)) == 1
    assert oracle.snapshot_rows(path, drop=NAME) == rows
    assert_metadata_in_step(path)
    assert project.cli("plan") == 0
    assert _groups(project) == []


def _forge(project: Project, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit the clustering node of plan.json as an attacker who rewrites the payload to match:
    the requested file rebuilt from the edited node, its sha256 and the plan id recomputed."""
    plan_dir = project.root / "target" / "plan"
    data = json.loads((plan_dir / PLAN_FILE).read_text())
    (node,) = [n for t in data["tables"] for n in t["nodes"] if n["service"] == "clustering"]
    edit(node)
    body = {k: v for k, v in data.items() if k not in ("plan_id", PAYLOAD_HASHES_FIELD, SIGNATURE_FIELD)}
    data["plan_id"] = compute_plan_id(body)
    parsed = read_body(body)
    (forged,) = [n for t in parsed.tables for n in t.nodes if n.service == "clustering"]
    (table,) = [t for t in parsed.tables if t.name == forged.table]
    for name, content in clustering_payloads(forged, Storage(table.path), data["plan_id"]).items():
        (plan_dir / PAYLOAD_DIR / name).write_bytes(content)
        data[PAYLOAD_HASHES_FIELD][name] = hashlib.sha256(content).hexdigest()
    (plan_dir / PLAN_FILE).write_text(json.dumps(data, indent=2))


def test_a_forged_group_is_not_executed(make_project: Callable[[Path, str], Project], tmp_path: Path) -> None:
    """An unsigned plan rewritten whole (node, payload, hashes, id): a group told to write 50
    file groups, and a group that takes a slice of the other partition, are drift; nothing is clustered."""
    path = tmp_path / "lake" / "t"
    _small_files_table(path, "cow", 8, True)
    rows = oracle.snapshot_rows(path, drop=NAME)
    project = make_project(path, f"{OFF}\n{CLUSTER}")
    assert project.cli("plan") == 0

    def edit(node: dict[str, Any]) -> None:
        first, second = [a for a in node["actions"] if a["kind"] == "cluster_group"]
        first["num_output_file_groups"] = 50
        second["slices"] = [*second["slices"], first["slices"][0]]  # another partition's slice

    first_slice = _groups(project)[0]["slices"][0]["file_id"]
    _forge(project, edit)
    assert project.cli("apply") == 2, project.results()
    assert _clusterings(path) == []
    result = project.results()["t.clustering"]
    reasons = " ".join(d["reason"] for d in result["drift"])
    assert "writes 50 file group(s) where its slices and target_file_max_bytes give 1" in reasons
    assert f"file group {first_slice} is no longer a small latest slice to cluster" in reasons
    assert oracle.snapshot_rows(path, drop=NAME) == rows
