"""Review gates through the CLI: a clean over its table's gate (set in the project's defaults or
the manifest) is planned blocked with the figures, and apply deletes nothing; raising the gate
(a reviewed manifest change) lets the same clean through."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support.metadata_tables import Project

CLEAN = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_file_versions, file_versions_retained: 1}"  # noqa: E501


def data_files(table: Path) -> set[str]:
    return {str(p.relative_to(table)) for p in table.rglob("*.parquet")}


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=6, rows_per_commit=10, seed=16)
    generate(str(path), DatagenSpec("t", "cow", 8, workload))
    return path


def local_engine(root: Path) -> None:
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))


def planned_clean(
    project: Callable[[Path, str], Path], table: Path, services: str, capsys: pytest.CaptureFixture[str]
) -> tuple[Project, dict[str, Any], str]:
    """Plan the table with ``services`` (engine: local): the project, its clean node, the output."""
    maintained = Project(project(table, services), table)
    local_engine(maintained.root)
    capsys.readouterr()
    maintained.cli("plan")
    return maintained, maintained.nodes()["t.clean"], capsys.readouterr().out


def test_a_clean_over_its_gate_is_blocked_and_apply_deletes_nothing(
    project: Callable[[Path, str], Path], table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = data_files(table)
    maintained, node, out = planned_clean(project, table, CLEAN + "\ngates: {max_delete_files: 5}", capsys)
    assert node["status"] == "blocked"
    (reason,) = node["reasons"]
    assert reason.startswith("over the gate gates.max_delete_files of table t (tables/example.yml): this")
    assert "the gate allows 5" in reason
    assert "over the gate gates.max_delete_files" in out
    maintained.cli("apply")
    assert data_files(table) == before


def test_a_gate_from_the_project_defaults_and_raising_it(
    project: Callable[[Path, str], Path], table: Path
) -> None:
    root = project(table, CLEAN)
    local_engine(root)
    config = root / "maintainer_project.yml"
    gate = "defaults:\n  gates: {max_delete_bytes: 1KiB}\n"
    config.write_text(config.read_text().replace("defaults:\n", gate))
    maintained = Project(root, table)
    maintained.cli("plan")
    assert maintained.nodes()["t.clean"]["status"] == "blocked"
    assert "gates.max_delete_bytes" in maintained.nodes()["t.clean"]["reasons"][0]

    project(table, CLEAN + "\ngates: {max_delete_bytes: 1GiB}")  # the manifest overrides the default
    maintained.cli("plan")
    assert maintained.nodes()["t.clean"]["status"] == "changes"
    before = data_files(table)
    assert maintained.cli("apply") == 0
    assert len(data_files(table)) < len(before)


def test_a_declared_reader_blocks_the_clean_that_would_cut_it_off(
    project: Callable[[Path, str], Path], table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readers = "\nreaders:\n  - {name: time_travel_audit, keep: 7d}\n  - {name: finance_incremental, lag: 6h}"
    before = data_files(table)
    maintained, node, out = planned_clean(project, table, CLEAN + readers, capsys)
    assert node["status"] == "blocked"
    assert [reason.split(":")[0] for reason in node["reasons"]] == [
        "would cut off reader time_travel_audit (keep 1w)",
        "would cut off reader finance_incremental (lag 6h)",
    ]
    assert "would cut off reader time_travel_audit" in out
    maintained.cli("apply")
    assert data_files(table) == before


def test_a_blocked_node_is_never_no_changes_and_has_its_own_exit_code(
    project: Callable[[Path, str], Path], table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    maintained = Project(project(table, CLEAN + "\ngates: {max_delete_files: 5}"), table)
    local_engine(maintained.root)
    capsys.readouterr()
    assert maintained.cli("plan", "--detailed-exitcode") == 3
    out = capsys.readouterr().out
    assert "No changes." not in out
    assert "No changes can be made: 1 node blocked" in out
    project(table, CLEAN + "\ngates: {max_delete_files: 100000}")
    assert maintained.cli("plan", "--detailed-exitcode") == 2


def test_show_defaults_to_the_plan_in_target(
    project: Callable[[Path, str], Path], table: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from maintainer.cli import main

    maintained = Project(project(table, CLEAN), table)
    local_engine(maintained.root)
    maintained.cli("plan")
    monkeypatch.chdir(maintained.root)
    capsys.readouterr()
    assert main(["show"]) == 0
    assert "t.clean" in capsys.readouterr().out
