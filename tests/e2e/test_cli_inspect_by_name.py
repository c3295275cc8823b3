"""``maintainer inspect NAME --project-dir DIR`` (issue 30): NAME is a table of the project,
opened at the path its manifest gives (with the target's storage options); a path is still a
path, and a name the project does not have is not found as a table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    table = tmp_path / "lake" / "rides"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=10, seed=3)
    generate(str(table), DatagenSpec("rides", "cow", 8, workload))
    project = tmp_path / "project"
    assert main(["init", str(project)]) == 0
    manifest = f"version: 1\ntables:\n  - name: trips\n    path: {table}\n"
    (project / "tables" / "example.yml").write_text(manifest)
    return project


def test_a_table_name_of_the_project_is_inspected_at_its_path(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["inspect", "trips", "--project-dir", str(root), "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["table"]["base_path"].rstrip("/").endswith(str(tmp_path / "lake" / "rides"))
    assert state["table"]["name"] == "rides"


def test_without_a_project_or_for_another_name_the_argument_is_a_path(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "trips"]) != 0  # no project: "trips" is a path, and there is none
    assert main(["inspect", "rides", "--project-dir", str(root)]) != 0
    err = capsys.readouterr().err
    assert "rides" in err and "Traceback" not in err
