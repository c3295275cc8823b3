"""Small records shared by several payloads, and the conversions every model uses.

Models keep Avro's distinction between a missing value (``None``) and an empty one (``()``,
``{}``) so that decoding and re-encoding a payload gives the same record. Arrays become tuples,
maps stay (insertion-ordered) dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
U = TypeVar("U")

Record = dict[str, Any]


def tuple_or_none(
    values: Iterable[Any] | None, convert: Callable[[Any], T] | None = None
) -> tuple[T, ...] | None:
    """``values`` as a tuple (each converted), or None."""
    if values is None:
        return None
    return tuple(convert(value) if convert else value for value in values)


def list_or_none(values: Iterable[T] | None, convert: Callable[[T], Any] | None = None) -> list[Any] | None:
    """``values`` as a list (each converted), or None."""
    if values is None:
        return None
    return [convert(value) if convert else value for value in values]


def map_or_none(
    values: Mapping[str, Any] | None, convert: Callable[[Any], U] | None = None
) -> dict[str, U] | None:
    """``values`` as a dict (each value converted), or None."""
    if values is None:
        return None
    return {key: convert(value) if convert else value for key, value in values.items()}


def strings_map(values: Mapping[str, Iterable[str]] | None) -> dict[str, tuple[str, ...]] | None:
    """A map of string arrays, arrays as tuples."""
    return map_or_none(values, tuple)


def strings_map_record(values: Mapping[str, Iterable[str]] | None) -> dict[str, list[str]] | None:
    """A map of string arrays, arrays as lists (for Avro records)."""
    return map_or_none(values, list)


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionInstant:
    """``HoodieActionInstant``: an instant by time, action and state (e.g. the clean's ECTR)."""

    timestamp: str
    action: str
    state: str

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ActionInstant:
        return cls(timestamp=record["timestamp"], action=record["action"], state=record["state"])

    def to_record(self) -> Record:
        return {"timestamp": self.timestamp, "action": self.action, "state": self.state}


@dataclass(frozen=True, slots=True, kw_only=True)
class InstantInfo:
    """``HoodieInstantInfo``: an instant by time and action (rollback plans and metadata)."""

    commit_time: str
    action: str

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> InstantInfo:
        return cls(commit_time=record["commitTime"], action=record["action"])

    def to_record(self) -> Record:
        return {"commitTime": self.commit_time, "action": self.action}
