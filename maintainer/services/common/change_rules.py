"""The vocabulary of the review's change rules (``ServiceDeclaration.change_rules``): how a
changed manifest option is classified, from its value before and after (None: not set)."""

from __future__ import annotations

from typing import Any

from maintainer.catalog import ChangeKind, Classifier
from maintainer.project.durations import parse_duration


def as_number(value: Any) -> float | None:
    """A number or a duration (in seconds), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return parse_duration(value).total_seconds()
    except ValueError:
        return None


def less_is_destructive(what: str) -> Classifier:
    """A retention-like option: lowering it deletes sooner or keeps less."""

    def classify(before: Any, after: Any) -> tuple[ChangeKind, str]:
        old, new = as_number(before), as_number(after)
        if old is not None and new is not None and new >= old:
            return ChangeKind.METADATA, f"more {what}"
        return ChangeKind.DESTRUCTIVE, f"less {what}"

    return classify


def more_is_destructive(what: str) -> Classifier:
    """A limit that protects: raising (or removing) it lets a plan do more."""

    def classify(before: Any, after: Any) -> tuple[ChangeKind, str]:
        old, new = as_number(before), as_number(after)
        if new is not None and (old is None or new > old):
            if old is None:
                return ChangeKind.METADATA, f"a new {what}"
            return ChangeKind.DESTRUCTIVE, f"a higher {what}"
        if new is None and old is not None:
            return ChangeKind.DESTRUCTIVE, f"no {what} any more"
        return ChangeKind.METADATA, f"a lower {what}"

    return classify


def switched_on(service: str) -> Classifier:
    """``enabled``: switching a service on is destructive (it starts deleting)."""

    def classify(before: Any, after: Any) -> tuple[ChangeKind, str]:
        if after is True:
            return ChangeKind.DESTRUCTIVE, f"{service} switched on"
        return ChangeKind.METADATA, f"{service} switched off"

    return classify


def always(kind: ChangeKind, why: str) -> Classifier:
    return lambda before, after: (kind, why)


def fewer_items(what: str) -> Classifier:
    """A list whose removed items lose protection (savepointed instants)."""

    def classify(before: Any, after: Any) -> tuple[ChangeKind, str]:
        removed = set(before or ()) - set(after or ())
        if removed:
            return ChangeKind.DESTRUCTIVE, f"{what} removed: {', '.join(sorted(map(str, removed)))}"
        return ChangeKind.METADATA, f"{what} added"

    return classify


def true_is_destructive(why: str) -> Classifier:
    def classify(before: Any, after: Any) -> tuple[ChangeKind, str]:
        return (ChangeKind.DESTRUCTIVE, why) if after is True else (ChangeKind.METADATA, f"no longer: {why}")

    return classify
