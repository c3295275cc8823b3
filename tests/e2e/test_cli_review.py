"""What a reviewer sees beyond the plan's nodes, through the CLI: where the plan comes from
(when, commit, version, selection) and what changed in the manifests since the last applied
plan (kept by apply in target/last_applied, or given with --state), by kind."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from tests.support.metadata_tables import Project, local_cow_project

RETAIN_3 = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_commits, commits_retained: 3}"  # noqa: E501
RETAIN_2 = RETAIN_3.replace("commits_retained: 3", "commits_retained: 2") + "\ntags: [audited]"


@pytest.fixture
def maintained(project: Callable[[Path, str], Path], tmp_path: Path) -> Project:
    return local_cow_project(project, tmp_path, RETAIN_3, commits=6, seed=5)


def review(project: Project) -> str:
    return (project.root / "target" / "plan" / "plan.md").read_text()


def test_the_plan_says_when_and_from_which_commit_and_selection_it_was_made(maintained: Project) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = maintained.root
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", "-C", str(root), *command], check=True, capture_output=True)
    commit = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert maintained.cli("plan", "--select", "t") == 0
    text = review(maintained)
    assert "| made | " in text and " by maintainer " in text
    assert f"| from commit | `{commit[:12]} (" in text
    assert "| selection | --select t: all 1 tables |" in text
    meta = json.loads((root / "target" / "plan" / "plan_meta.json").read_text())
    assert meta["provenance"]["git"]["commit"] == commit


def test_manifest_changes_since_the_last_applied_plan_are_listed_by_kind(
    maintained: Project, project: Callable[[Path, str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert maintained.cli("plan") == 0
    assert "What changed in the manifests" not in review(maintained)  # nothing applied yet
    plan_id = json.loads((maintained.root / "target" / "plan" / "plan.json").read_text())["plan_id"]
    assert maintained.cli("apply") == 0
    state = maintained.root / "target" / "last_applied"
    kept = json.loads((state / "manifest.json").read_text())
    assert kept["applied"]["plan_id"] == plan_id and kept["tables"]["t"]["applied"]["plan_id"] == plan_id

    project(maintained.table, RETAIN_2)  # less retention, and a tag
    capsys.readouterr()
    assert maintained.cli("plan") == 0
    text = review(maintained)
    assert f"### What changed in the manifests since the last applied plan {plan_id[:12]}" in text
    assert (
        "| `tables/example.yml:7` | `clean.commits_retained`: 3 → 2 | 1 table (`t`) "
        "| **destructive**: less retention (commits) |"
    ) in text
    assert "| `tables/example.yml:8` | `tags`: " in text and "metadata-only" in text
    assert "1 destructive, 1 metadata-only (maintenance changes for 1 table: 1 destructive)" in text
    out = capsys.readouterr().out
    assert "destructive   tables/example.yml:7 clean.commits_retained: 3 -> 2: 1 table (t) (less" in out
    assert "No files to change now; maintenance changes for 1 table: 1 destructive." in out

    assert main(["show", str(maintained.root / "target" / "plan"), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == text  # show renders the same review, from plan_meta.json


def test_state_dir_is_the_baseline_when_given(maintained: Project, tmp_path: Path) -> None:
    baseline = tmp_path / "state"
    assert maintained.cli("compile", "--output", str(baseline / "manifest.json")) == 0
    assert maintained.cli("plan", "--state", str(baseline)) == 0
    text = review(maintained)
    assert f"### What changed in the manifests since --state {baseline}" in text
    assert "Nothing: the same manifests as then." in text
