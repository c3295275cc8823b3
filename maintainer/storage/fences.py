"""Write fences: while a table's lock is held, every write below the table first checks it."""

from __future__ import annotations

import threading
from collections.abc import Callable

WriteFence = Callable[[], None]
"""Raises when writes below a root must stop (the table's lock was lost)."""

_FENCES: dict[str, WriteFence] = {}
_FENCES_LOCK = threading.Lock()


def set_write_fence(root_uri: str, fence: WriteFence) -> None:
    """Every write and delete this process makes at or below ``root_uri`` (a table's
    :meth:`Storage.uri`, through any :class:`Storage`) first calls ``fence``, which raises to
    stop it. The table lock sets one while it is held, so a node that lost its lock cannot
    write another file into the table. (Spark executors in other processes are not fenced: the
    files they write are not part of the table until the driver's commit, which is.)"""
    with _FENCES_LOCK:
        _FENCES[root_uri.rstrip("/")] = fence


def clear_write_fence(root_uri: str, fence: WriteFence) -> None:
    """Remove ``fence`` from ``root_uri`` (a fence set there since by someone else stays)."""
    with _FENCES_LOCK:
        if _FENCES.get(root_uri.rstrip("/")) is fence:
            del _FENCES[root_uri.rstrip("/")]


def check_write_fences(target_uri: str) -> None:
    """Call every fence set at or above ``target_uri`` (each raises to stop the write)."""
    if not _FENCES:
        return
    with _FENCES_LOCK:
        fences = [fence for root, fence in _FENCES.items()
                  if target_uri == root or target_uri.startswith(root + "/")]  # fmt: skip
    for fence in fences:
        fence()
