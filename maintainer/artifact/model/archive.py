"""The archive node's records: one action per instant to archive (oldest first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveInstant(PlanRecord):
    kind: Literal["archive_instant"] = "archive_instant"
    target: str
    reason: str
    action: str
    state_files: tuple[str, ...]
    """The instant's files in the active timeline (they move to the archived timeline)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveBoundary(PlanRecord):
    """The instant archival stops before, and why."""

    instant: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveEffect(PlanRecord):
    kind: Literal["archive"] = "archive"
    instants: tuple[str, ...]
    commits: int
    archived_timeline: str
    stops_before: tuple[ArchiveBoundary, ...]
