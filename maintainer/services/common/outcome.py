"""How a service's apply reports approved work it did not do (drift) and sums itself up."""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.services.base import Drift


def drift(approved: Iterable[str], done: Iterable[str], reason: str) -> tuple[Drift, ...]:
    """The approved targets not done, each with ``reason``."""
    finished = set(done)
    return tuple(Drift(target, reason) for target in approved if target not in finished)


def summary(count: int, what: str, drifted: tuple[Drift, ...]) -> str:
    text = f"{count} {what}" if count else "nothing to do"
    return text + (f", {len(drifted)} drifted" if drifted else "")
