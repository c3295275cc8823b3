"""The fault hook: what executors call at their named safe points.

``maybe_fail`` is the hook tests arm (``FAULT_ENV``) to crash an apply at a named point; its
points are the executors' safe points, where a stop asked for by a second Ctrl-C
(:func:`request_stop`) ends the node too.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from maintainer.errors import ApplyError

FAULT_ENV = "MAINTAINER_FAULT_INJECT"
"""``<service>:<point>`` (several separated by commas), e.g. ``clean:after_inflight``."""


class InjectedFault(ApplyError):
    """The failure a test asked for (never raised unless the environment variable is set)."""


def _armed_points() -> set[str]:
    value = os.environ.get(FAULT_ENV, "")
    return {part.strip() for part in value.split(",") if part.strip()}


Fault = Callable[[str], None]
"""A fault hook an executor calls at its named points (``maybe_fail`` bound to a service in
apply; ``no_fault`` elsewhere)."""


def no_fault(point: str) -> None:
    return None


class Stopped(ApplyError):
    """A node ended at a safe point because the apply was told to stop now (a second Ctrl-C)."""


_STOP = threading.Event()


def request_stop() -> None:
    """Every running node ends at its next safe point (a ``maybe_fail`` point): what it wrote
    stays requested or inflight on the timeline, as after a crash there, which the next apply
    of the plan finishes or rolls back."""
    _STOP.set()


def clear_stop() -> None:
    _STOP.clear()


def stop_requested() -> bool:
    return _STOP.is_set()


def maybe_fail(service: str, point: str) -> None:
    """Raise :class:`Stopped` when the apply was told to stop now, and :class:`InjectedFault`
    when ``<service>:<point>`` is armed in ``FAULT_ENV``, as a crash at that point would."""
    name = f"{service}:{point}"
    if _STOP.is_set():
        raise Stopped(
            f"stopped at a safe point ({name}) as asked",
            hint="apply the same plan again: it resumes where this one stopped",
        )
    if name in _armed_points():
        raise InjectedFault(
            f"fault injected at {name}",
            hint=f"unset {FAULT_ENV} to run normally",
        )
