"""``apply`` takes the target from the plan (issue 30): a plan made with ``--target ci`` is applied
on ``ci`` without repeating ``--target``; a ``--target`` given and different is refused, as
before; a plan whose target the profile no longer has is refused, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support import artifacts

CLEAN_ONLY = "    clean: {commits_retained: 1}\n    archive: {enabled: false}\n"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_STATE", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=7)
    generate(str(table), DatagenSpec("t", "cow", 8, workload))
    project = tmp_path / "project"
    assert main(["init", str(project)]) == 0
    (project / "tables" / "example.yml").write_text(
        f"version: 1\ntables:\n  - name: t\n    path: {table}\n{CLEAN_ONLY}"
    )
    assert main(["plan", "--project-dir", str(project), "--target", "ci"]) == 0
    assert artifacts.plan_json(project / "target" / "plan")["target"] == "ci"
    return project


def test_apply_without_target_runs_on_the_plans_target(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert "target ci: the plan's (the profile's default is dev)" in capsys.readouterr().out
    results = artifacts.run_results(root / "target")
    assert results["args"]["target"] == "ci"
    assert {n["node"]: n["status"] for n in results["results"]}["t.clean"] == "success"


def test_another_target_given_is_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root), "--target", "dev"]) == 1
    err = capsys.readouterr().err
    assert "the plan was made for project 'project', target 'ci'; " in err
    assert "this is project 'project', target 'dev'" in err
    assert not (root / "target" / "run_results.json").exists()


def test_a_plan_target_the_profile_lost_is_named(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("    ci:", "    staging:"))
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert "the plan was made for target 'ci' (the profile's default is 'dev'), which cannot be loaded" in err
    assert not (root / "target" / "run_results.json").exists()
