"""Small records shared by several payloads.

Models keep Avro's distinction between a missing value (``None``) and an empty one (``()``,
``{}``) so that decoding and re-encoding a payload gives the same record. Arrays become tuples,
maps stay (insertion-ordered) dicts (:mod:`maintainer.hudi.payloads.records`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maintainer.hudi.payloads.records import AvroRecord, avro


def float_values(values: Mapping[str, float]) -> dict[str, float]:
    """A map of Avro doubles (e.g. a plan's metrics), every value a float."""
    return {key: float(value) for key, value in values.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionInstant(AvroRecord):
    """``HoodieActionInstant``: an instant by time, action and state (e.g. the clean's ECTR)."""

    timestamp: str = field(metadata=avro("timestamp", required=True))
    action: str = field(metadata=avro("action", required=True))
    state: str = field(metadata=avro("state", required=True))


@dataclass(frozen=True, slots=True, kw_only=True)
class InstantInfo(AvroRecord):
    """``HoodieInstantInfo``: an instant by time and action (rollback plans and metadata)."""

    commit_time: str = field(metadata=avro("commitTime", required=True))
    action: str = field(metadata=avro("action", required=True))
