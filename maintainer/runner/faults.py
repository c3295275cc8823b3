"""Fault injection for tests: make an executor fail at a named point, as a crash would.

Set ``MAINTAINER_FAULT_INJECT=<service>:<point>`` (several separated by commas), e.g.
``clean:after_inflight``; executors call :func:`maybe_fail` at each point they name.
"""

from __future__ import annotations

import os

from maintainer.errors import ApplyError

FAULT_ENV = "MAINTAINER_FAULT_INJECT"


class InjectedFault(ApplyError):
    """The failure a test asked for (never raised unless the environment variable is set)."""


def _armed_points() -> set[str]:
    value = os.environ.get(FAULT_ENV, "")
    return {part.strip() for part in value.split(",") if part.strip()}


def maybe_fail(service: str, point: str) -> None:
    """Raise :class:`InjectedFault` when ``<service>:<point>`` is armed."""
    name = f"{service}:{point}"
    if name in _armed_points():
        raise InjectedFault(
            f"fault injected at {name}",
            hint=f"unset {FAULT_ENV} to run normally",
        )
