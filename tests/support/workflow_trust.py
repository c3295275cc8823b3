"""Which jobs of a GitHub Actions workflow a pull request can run, and what they could reach.

A pull request runs its own copy of the workflow, so a job it can trigger must be harmless
whatever its steps do: it may hold the token a plan comment needs and the OIDC token for a
read-only role, never a write permission, a secret, an environment or the write role.

`if:` expressions are evaluated with three values (true, false, unknown) for one event:
only `github.event_name` is known, every other context and every function is unknown, so a job
counts as unreachable only when its condition is false whatever the unknowns are."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
READ_ROLE_VARIABLE = "MAINTAINER_READ_ROLE_ARN"
WRITE_ROLE_VARIABLE = "MAINTAINER_WRITE_ROLE_ARN"
READ_ROLE = "${{ vars." + READ_ROLE_VARIABLE + " }}"
PULL_REQUEST_WRITES = {
    "pull-requests": "the plan comment",
    "id-token": "OIDC for the read-only role (its trust policy accepts pull-request runs only)",
}
ROLE_INPUTS = ("role-to-assume", "service_account")
"""Inputs of the cloud login actions that name the identity assumed (AWS, GCP)."""


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|<=|>=|&&|\|\||[!()<>,\[\]])"
    r"|(?P<number>-?\d+(?:\.\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-*]+)*))"
)
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


def tokenize(expression: str) -> list[str]:
    tokens: list[str] = []
    position, text = 0, expression.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise ValueError(f"cannot read the expression at {text[position:]!r}")
        tokens.append(match.group(match.lastgroup))
        position = match.end()
    return tokens


@dataclass
class _Evaluator:
    """Recursive descent over GitHub's expression grammar (``!``, comparisons, ``&&``, ``||``,
    parentheses, literals, contexts, function calls, indexes)."""

    tokens: list[str]
    event: str
    position: int = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected or 'more'} at token {self.position} of {self.tokens}")
        self.position += 1
        return token

    def expression(self) -> object:
        left = self.conjunction()
        while self.peek() == "||":
            self.take()
            left = _or(left, self.conjunction())
        return left

    def conjunction(self) -> object:
        left = self.unary()
        while self.peek() == "&&":
            self.take()
            left = _and(left, self.unary())
        return left

    def unary(self) -> object:
        if self.peek() == "!":
            self.take()
            value = _truth(self.unary())
            return value if value is UNKNOWN else not value
        return self.comparison()

    def comparison(self) -> object:
        left = self.primary()
        if self.peek() in ("==", "!=", "<", "<=", ">", ">="):
            operator = self.take()
            return _compare(operator, left, self.primary())
        return left

    def primary(self) -> object:
        token = self.take()
        if token == "(":
            value = self.expression()
            self.take(")")
        elif token.startswith("'"):
            value = token[1:-1].replace("''", "'")
        elif re.fullmatch(r"-?\d+(?:\.\d+)?", token):
            value = float(token)
        elif token in ("true", "false"):
            value = token == "true"
        elif token == "null":
            value = None
        elif self.peek() == "(":
            self.arguments()
            value = UNKNOWN  # a function: always(), contains(...), fromJSON(...) ...
        else:
            value = self.event if token == "github.event_name" else UNKNOWN
        while self.peek() == "[":  # github.event['x'], fromJSON(...)[0]
            self.take()
            self.expression()
            self.take("]")
            value = UNKNOWN
        return value

    def arguments(self) -> None:
        self.take("(")
        while self.peek() != ")":
            self.expression()
            if self.peek() == ",":
                self.take()
        self.take(")")


def _truth(value: object) -> object:
    if value is UNKNOWN:
        return UNKNOWN
    return value not in (False, None, "", 0.0)


def _and(left: object, right: object) -> object:
    lt, rt = _truth(left), _truth(right)
    if lt is False:
        return left
    if lt is UNKNOWN:
        return right if rt is False else UNKNOWN
    return right


def _or(left: object, right: object) -> object:
    lt, rt = _truth(left), _truth(right)
    if lt is True:
        return left
    if lt is UNKNOWN:
        return right if rt is True else UNKNOWN
    return right


def _compare(operator: str, left: object, right: object) -> object:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(left, str) and isinstance(right, str):  # GitHub compares strings ignoring case
        left, right = left.casefold(), right.casefold()
    if operator == "==":
        return left == right
    if operator == "!=":
        return left != right
    return UNKNOWN  # an ordering: never needed to decide an event


def evaluate(condition: str, event: str) -> object:
    """True, False or UNKNOWN: the value of a job's ``if:`` when the workflow runs for ``event``."""
    text = condition.strip()
    whole = _EXPRESSION.fullmatch(text)
    evaluator = _Evaluator(tokenize(whole.group(1) if whole else text), event)
    value = evaluator.expression()
    if evaluator.peek() is not None:
        raise ValueError(f"unexpected {evaluator.peek()!r} in {condition!r}")
    return _truth(value)


def events(workflow: dict[Any, Any]) -> set[str]:
    """The events that start the workflow (YAML 1.1 reads the key ``on`` as True)."""
    triggers = workflow.get("on", workflow.get(True))
    if isinstance(triggers, str):
        return {triggers}
    if isinstance(triggers, list):
        return {str(t) for t in triggers}
    assert isinstance(triggers, dict), triggers
    return {str(t) for t in triggers}


def can_run(job: dict[str, Any], event: str) -> bool:
    """Whether the job may run when the workflow runs for ``event`` (unknown counts as yes)."""
    condition = job.get("if")
    if condition is None or isinstance(condition, bool):
        return condition is not False
    return evaluate(str(condition), event) is not False


def pull_request_jobs(workflow: dict[Any, Any]) -> list[str]:
    """The jobs a pull request can run: the workflow has a pull-request trigger and the job's
    ``if:`` is not false for it."""
    triggered = [event for event in PULL_REQUEST_EVENTS if event in events(workflow)]
    return [name for name, job in workflow["jobs"].items() if any(can_run(job, event) for event in triggered)]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _conditions(value: Any) -> Iterator[str]:
    """The ``if:`` values at any depth (expressions without ``${{ }}``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "if" and isinstance(item, str):
                yield item
            yield from _conditions(item)
    elif isinstance(value, list):
        for item in value:
            yield from _conditions(item)


def _expressions(scope: Any) -> list[str]:
    """Every expression in ``scope``: inside ``${{ }}``, and each ``if:``."""
    found = [m.group(1) for text in _strings(scope) for m in _EXPRESSION.finditer(text)]
    return found + list(_conditions(scope))


def reads_a_secret(scope: Any) -> bool:
    return any(re.search(r"\bsecrets\b", expression) for expression in _expressions(scope))


def _permission_problems(permissions: Any) -> list[str]:
    if permissions is None:
        return ["sets no permissions: its token gets the repository's default, which may write"]
    if isinstance(permissions, str):
        return [] if permissions == "read-all" else [f"permissions: {permissions}"]
    return [
        f"{scope}: write"
        for scope, level in permissions.items()
        if level == "write" and scope not in PULL_REQUEST_WRITES
    ]


def pull_request_job_problems(job: dict[str, Any], workflow_permissions: Any) -> list[str]:
    """What makes a job unsafe to hand to a pull request."""
    problems = _permission_problems(job.get("permissions", workflow_permissions))
    if "environment" in job:
        problems.append(f"runs in the environment {job['environment']!r}")
    if reads_a_secret(job):
        problems.append("reads a secret")
    if any(re.search(rf"\b{WRITE_ROLE_VARIABLE}\b", text) for text in _strings(job)):
        problems.append(f"names the write role ({WRITE_ROLE_VARIABLE})")
    for step in job.get("steps", []):
        for key in ROLE_INPUTS:
            role = (step.get("with") or {}).get(key)
            if role is not None and str(role).strip() != READ_ROLE:
                problems.append(f"assumes {role!r} ({key}), not the read-only role {READ_ROLE}")
    return problems


def trust_violations(workflow: dict[Any, Any]) -> list[str]:
    """Everything that lets a pull request reach a write permission, a secret or the write role;
    empty when none does."""
    found = []
    top = workflow.get("permissions")
    if top != {"contents": "read"}:
        found.append(
            f"the workflow's own permissions must be `contents: read` only (each job asks), not {top!r}"
        )
    if reads_a_secret(workflow.get("env")):
        found.append("the workflow's env reads a secret: every job sees it, a pull request's too")
    for name in pull_request_jobs(workflow):
        job = workflow["jobs"][name]
        found += [f"job {name} (a pull request runs it): {p}" for p in pull_request_job_problems(job, top)]
    return found
