"""The checker tests/e2e/test_workflow_template.py runs on the shipped workflow: which jobs a pull
request can run (their `if:` read with three values), and each way such a job could reach a write
permission, a secret, an environment or the write role is found."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from maintainer.commands.init_cmd import template_dir
from tests.support.workflow_trust import (
    READ_ROLE,
    UNKNOWN,
    evaluate,
    pull_request_jobs,
    trust_violations,
)

TEMPLATE = template_dir() / ".github" / "workflows" / "maintainer.yml"


@pytest.fixture
def shipped() -> dict[Any, Any]:
    data = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _workflow(job: dict[str, Any], on: Any = "pull_request", **top: Any) -> dict[Any, Any]:
    return {"on": on, "permissions": {"contents": "read"}, **top, "jobs": {"j": {"runs-on": "x", **job}}}


@pytest.mark.parametrize(
    ("condition", "event", "value"),
    [
        ("github.event_name == 'push'", "pull_request", False),
        ("github.event_name == 'push'", "push", True),
        ("${{ github.event_name == 'PUSH' }}", "push", True),  # strings compare ignoring case
        ("github.event_name != 'push'", "pull_request", True),
        ("!(github.event_name == 'pull_request')", "pull_request", False),
        ("github.event_name == 'push' && github.ref == 'refs/heads/main'", "pull_request", False),
        ("github.event_name == 'push' && github.ref == 'refs/heads/main'", "push", UNKNOWN),
        ("github.ref == 'refs/heads/main' && github.event_name == 'push'", "pull_request", False),
        ("github.event_name == 'push' || github.ref == 'refs/heads/main'", "pull_request", UNKNOWN),
        (
            "(github.event_name == 'schedule' || github.event_name == 'workflow_dispatch')",
            "pull_request",
            False,
        ),
        ("always()", "pull_request", UNKNOWN),
        ("contains(fromJSON('[\"push\"]'), github.event_name)", "pull_request", UNKNOWN),
        ("github.event['action'] == 'closed'", "pull_request", UNKNOWN),
        ("github.event_name == 'it''s'", "pull_request", False),
        ("false", "pull_request", False),
    ],
)
def test_a_condition_is_false_only_when_no_unknown_can_make_it_true(
    condition: str, event: str, value: object
) -> None:
    assert evaluate(condition, event) is value


def test_a_job_runs_for_a_pull_request_unless_its_condition_rules_it_out() -> None:
    assert pull_request_jobs(_workflow({})) == ["j"]
    assert pull_request_jobs(_workflow({"if": "github.event_name != 'push'"})) == ["j"]
    assert pull_request_jobs(_workflow({"if": "always()"})) == ["j"]
    assert pull_request_jobs(_workflow({"if": "github.event_name == 'push'"})) == []
    assert pull_request_jobs(_workflow({}, on={"push": {"branches": ["main"]}})) == []
    # pull_request_target runs the base's workflow with the base's secrets: it counts too
    assert pull_request_jobs(
        _workflow({"if": "github.event_name == 'pull_request_target'"}, on=["pull_request_target"])
    ) == ["j"]


@pytest.mark.parametrize(
    ("job", "top", "found"),
    [
        ({"permissions": {"contents": "write"}}, {}, "contents: write"),
        ({"permissions": "write-all"}, {}, "permissions: write-all"),
        ({"permissions": {"actions": "write"}}, {}, "actions: write"),
        ({}, {"permissions": None}, "sets no permissions"),
        ({"environment": "production"}, {}, "runs in the environment 'production'"),
        ({"environment": {"name": "production", "url": "x"}}, {}, "runs in the environment"),
        ({"env": {"K": "${{ secrets.MAINTAINER_PLAN_KEY }}"}}, {}, "reads a secret"),
        ({"steps": [{"run": "x", "env": {"K": "${{ secrets['KEY'] }}"}}]}, {}, "reads a secret"),
        ({"steps": [{"if": "secrets.KEY != ''", "run": "x"}]}, {}, "reads a secret"),
        (
            {
                "steps": [
                    {
                        "uses": "aws-actions/configure-aws-credentials@v4",
                        "with": {"role-to-assume": "${{ vars.MAINTAINER_WRITE_ROLE_ARN }}"},
                    }
                ]
            },
            {},
            "names the write role",
        ),
        (
            {
                "steps": [
                    {
                        "uses": "aws-actions/configure-aws-credentials@v4",
                        "with": {"role-to-assume": "arn:aws:iam::1:role/w"},
                    }
                ]
            },
            {},
            "assumes 'arn:aws:iam::1:role/w' (role-to-assume), not the read-only role",
        ),
        (
            {
                "steps": [
                    {
                        "uses": "google-github-actions/auth@v2",
                        "with": {"service_account": "w@p.iam.gserviceaccount.com"},
                    }
                ]
            },
            {},
            "(service_account), not the read-only role",
        ),
        ({}, {"permissions": {"contents": "read", "id-token": "write"}}, "the workflow's own permissions"),
        ({}, {"env": {"K": "${{ secrets.K }}"}}, "the workflow's env reads a secret"),
    ],
)
def test_each_way_a_pull_request_job_could_write_is_found(
    job: dict[str, Any], top: dict[str, Any], found: str
) -> None:
    violations = trust_violations(_workflow(job, **top))
    assert any(found in v for v in violations), violations


def test_what_a_plan_comment_and_the_read_role_need_is_allowed() -> None:
    job = {
        "permissions": {"contents": "read", "pull-requests": "write", "actions": "read", "id-token": "write"},
        "steps": [
            {"uses": "aws-actions/configure-aws-credentials@v4", "with": {"role-to-assume": READ_ROLE}}
        ],
    }
    assert trust_violations(_workflow(job)) == []
    # a job a pull request cannot start may hold what it needs
    apply = {
        "if": "github.event_name == 'push'",
        "environment": "production",
        "env": {"K": "${{ secrets.K }}"},
    }
    assert trust_violations(_workflow(apply, on=["pull_request", "push"])) == []


def test_the_attacks_of_a_pull_request_on_the_shipped_workflow_are_found(shipped: dict[Any, Any]) -> None:
    assert trust_violations(shipped) == []
    attacks: list[tuple[Callable[[dict[Any, Any]], object], str]] = [
        (lambda w: w["jobs"]["plan"].update(environment="production"), "runs in the environment"),
        (lambda w: w["jobs"]["apply"].update({"if": "github.event_name != 'schedule'"}), "job apply"),
        (lambda w: w["jobs"]["scheduled"].pop("if"), "job scheduled"),
        (lambda w: w["permissions"].update({"id-token": "write"}), "the workflow's own permissions"),
        (
            lambda w: w["env"].update(MAINTAINER_PLAN_KEY="${{ secrets.MAINTAINER_PLAN_KEY }}"),
            "reads a secret",
        ),
    ]
    for attack, found in attacks:
        workflow = copy.deepcopy(shipped)
        attack(workflow)
        violations = trust_violations(workflow)
        assert any(found in v for v in violations), (found, violations)
    # the plan job assuming the write role (what the template did before: one role for all)
    workflow = copy.deepcopy(shipped)
    for step in workflow["jobs"]["plan"]["steps"]:
        if "role-to-assume" in step.get("with", {}):
            step["with"]["role-to-assume"] = "${{ vars.MAINTAINER_ROLE_ARN }}"
    assert any("not the read-only role" in v for v in trust_violations(workflow))
