"""The apply job's own steps of the shipped workflow, run under bash with the real CLI on a real
table: it plans the merged commit again and applies that plan only when its id is the reviewed
one. A plan made elsewhere (another pull request of the same branch, other manifests) is never
applied: the ids differ and the job stops before anything is written. No network, no JVM
(`engine: local`); `jq` as on GitHub's runners."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from maintainer.cli import main
from maintainer.commands.init_cmd import template_dir
from tests.support.metadata_tables import Project, local_cow_project

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = template_dir() / ".github" / "workflows" / "maintainer.yml"
REPLAN_STEP = "Plan again here, and require the reviewed plan id"
APPLY_STEP = "Apply the plan (made here, identical to the reviewed one)"
RETAIN_3 = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_commits, commits_retained: 3}"  # noqa: E501
KEY = "the production environment's key"

pytestmark = pytest.mark.skipif(
    shutil.which("jq") is None or shutil.which("bash") is None, reason="needs jq, bash"
)


@pytest.fixture
def maintained(bare_project: Callable[[Path, str], Path], tmp_path: Path) -> Project:
    """A local copy-on-write table with file versions to clean, in a project (no JVM)."""
    return local_cow_project(bare_project, tmp_path, RETAIN_3, commits=6, seed=5)


def _apply_steps() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = {step["name"]: step for step in workflow["jobs"]["apply"]["steps"] if "name" in step}
    return workflow, {name: steps[name] for name in (REPLAN_STEP, APPLY_STEP)}


def _run_step(
    step: dict[str, Any], workflow: dict[str, Any], root: Path, tmp_path: Path, reviewed_id: str
) -> subprocess.CompletedProcess[str]:
    """The step's script as GitHub runs it (bash -eo pipefail), with the workflow's literal env,
    the step's expressions given their production values, and `maintainer` this checkout's CLI."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    launcher = bin_dir / "maintainer"
    entry = "import sys; from maintainer.cli import main; sys.exit(main(sys.argv[1:]))"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "{entry}" "$@"\n')
    launcher.chmod(0o755)
    expressions = {
        "${{ secrets.MAINTAINER_PLAN_KEY }}": KEY,
        "${{ steps.reviewed.outputs.plan_id }}": reviewed_id,
    }
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(REPO),
        "CI": "true",
        **{k: str(v) for k, v in workflow["env"].items()},
        **{k: expressions[v] for k, v in (step.get("env") or {}).items()},
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _review(maintained: Project, tmp_path: Path, name: str) -> str:
    """What the pull request's plan job leaves: a plan, unsigned (that job holds no key)."""
    out = tmp_path / "artifacts" / name
    assert main(["plan", "--project-dir", str(maintained.root), "--target", "ci", "--out", str(out)]) == 0
    assert "signature" not in json.loads((out / "plan.json").read_text())
    return str(json.loads((out / "plan.json").read_text())["plan_id"])


def _timeline(table: Path) -> list[str]:
    return sorted(p.name for p in (table / ".hoodie" / "timeline").iterdir() if p.is_file())


def test_the_reviewed_plan_is_planned_again_and_applied_signed(maintained: Project, tmp_path: Path) -> None:
    workflow, steps = _apply_steps()
    reviewed = _review(maintained, tmp_path, "maintainer-plan-7-abc")
    before = _timeline(maintained.table)

    replan = _run_step(steps[REPLAN_STEP], workflow, maintained.root, tmp_path, reviewed)
    assert replan.returncode == 0, replan.stdout + replan.stderr
    assert f"this commit plans exactly the reviewed plan {reviewed}" in replan.stdout
    plan = json.loads((maintained.root / "target" / "plan" / "plan.json").read_text())
    assert plan["plan_id"] == reviewed and plan["signature"].startswith(
        "hmac-sha256:"
    )  # made here, signed here

    applied = _run_step(steps[APPLY_STEP], workflow, maintained.root, tmp_path, reviewed)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    cleans = [name for name in set(_timeline(maintained.table)) - set(before) if ".clean" in name]
    assert cleans, _timeline(maintained.table)
    assert all(r["status"] == "success" for r in maintained.results().values())


def test_a_plan_nobody_reviewed_for_this_commit_is_never_applied(maintained: Project, tmp_path: Path) -> None:
    workflow, steps = _apply_steps()
    # a second pull request from the same branch (into another base, or with other manifests)
    # leaves an artifact whose plan deletes more; the merged commit keeps 3 commits
    manifest = maintained.root / "tables" / "example.yml"
    merged = manifest.read_text()
    manifest.write_text(merged.replace("commits_retained: 3", "commits_retained: 1"))
    other = _review(maintained, tmp_path, "maintainer-plan-8-abc")
    manifest.write_text(merged)
    before = _timeline(maintained.table)

    replan = _run_step(steps[REPLAN_STEP], workflow, maintained.root, tmp_path, other)
    assert replan.returncode == 1
    assert "the reviewed plan is not what this commit plans now" in replan.stdout
    assert f"reviewed {other}" in replan.stdout
    assert _timeline(maintained.table) == before  # nothing written: the job stops at this step
    assert not (maintained.root / "target" / "run_results.json").exists()
