"""The result of one check, and a report of many."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from maintainer.errors import MaintainerError


class CheckStatus(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check: its group (``project``, ``spark``, ``table trips``), what it checked, what was
    found, and (when it failed) what to do."""

    group: str
    name: str
    status: CheckStatus
    detail: str
    fix: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
        }


def passed(group: str, name: str, detail: str) -> CheckResult:
    return CheckResult(group, name, CheckStatus.PASSED, detail)


def failed(group: str, name: str, detail: str, fix: str | None) -> CheckResult:
    return CheckResult(group, name, CheckStatus.FAILED, detail, fix)


def skipped(group: str, name: str, detail: str) -> CheckResult:
    return CheckResult(group, name, CheckStatus.SKIPPED, detail)


def from_error(group: str, name: str, error: MaintainerError) -> CheckResult:
    """A failed check carrying the error's message (with where) and its hint as the fix."""
    detail = f"{error.where}: {error.message}" if error.where else error.message
    return failed(group, name, detail, error.hint)


def attempt(group: str, name: str, check: Callable[[], str]) -> CheckResult:
    """Run ``check`` (which returns what it found): passed, or failed with the error's words."""
    try:
        return passed(group, name, check())
    except MaintainerError as error:
        return from_error(group, name, error)


@dataclass(frozen=True)
class Report:
    results: tuple[CheckResult, ...]

    @classmethod
    def of(cls, results: Iterable[CheckResult]) -> Report:
        return cls(tuple(results))

    @property
    def failures(self) -> tuple[CheckResult, ...]:
        return tuple(result for result in self.results if result.status is CheckStatus.FAILED)

    @property
    def ok(self) -> bool:
        return not self.failures

    def count(self, status: CheckStatus) -> int:
        return sum(1 for result in self.results if result.status is status)
