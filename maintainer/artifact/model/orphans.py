"""The orphan-files node's records: each file no instant accounts for that the node removes
(deleted, or moved into the table's quarantine), and what the node found and left alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord

OrphanKind = Literal["dangling", "not_in_write_stats", "markers"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveOrphanFile(PlanRecord):
    """A file no instant accounts for (``target``: its table-relative path), removed only if it
    is still one, of this size, when apply lists the table again under the lock."""

    kind: Literal["remove_orphan_file"] = "remove_orphan_file"
    target: str
    reason: str
    size: int
    age_seconds: int | None
    """Age when planned (None: the storage gives no modification time)."""
    orphan: OrphanKind
    """Why it is an orphan: ``dangling`` (its instant is neither completed nor pending),
    ``not_in_write_stats`` (its completed instant does not list it), ``markers`` (a marker of an
    instant that is not pending)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanEffect(PlanRecord):
    """What the node removes and what it found but leaves alone."""

    kind: Literal["orphan_files"] = "orphan_files"
    files: int
    bytes: int
    quarantine: str | None
    """The table-relative folder the files are moved into (None: they are deleted)."""
    min_age: str
    """Files younger than this are never removed (``7d``)."""
    left_pending: int
    """Files a pending instant may still complete."""
    left_archived: int
    """Files older than the active timeline (their instant is archived)."""
    left_young: int
    """Files younger than ``min_age``."""
    left_listed: int
    """Files the metadata table's ``files`` partition lists (not orphans to Hudi's readers)."""
