"""The rollback node's records: one action per rollback (newest first) and the node's effect."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord

RollbackKind = Literal["rollback", "finish_pending_rollback", "remove_rolled_back_instant"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackRequestRecord(PlanRecord):
    """One ``HoodieRollbackRequest``: a file group's files to delete and log files that get a
    rollback block (absolute paths, as Hudi writes them; block counts by log file)."""

    partition: str
    file_id: str | None
    latest_base_instant: str | None
    files_to_be_deleted: tuple[str, ...]
    log_blocks_to_be_deleted: Mapping[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackAction(PlanRecord):
    """Roll back (or revert, finish, tidy up after) the instant ``target``."""

    kind: RollbackKind
    target: str
    reason: str
    action: str
    """The Hudi action of the instant rolled back (``commit``, ``deltacommit``...)."""
    state: str
    """Its state when planned (``REQUESTED``, ``INFLIGHT``...)."""
    source: str
    """How the rollback's files were found (markers, commit metadata, listing...)."""
    delete_files: tuple[str, ...]
    """Table-relative paths the rollback deletes."""
    rollback_blocks_for: tuple[str, ...]
    """Table-relative log files that get a rollback command block."""
    rollback_instant: str | None
    """The pending rollback's instant (kinds that finish one), else None."""
    requests: tuple[RollbackRequestRecord, ...] = ()
    """The requests of a new rollback's plan (kind ``rollback``)."""
    payload: str | None = None
    """The payload file holding the new rollback's ``.rollback.requested`` bytes."""
    delete_bytes: int = 0
    """Bytes of ``delete_files`` as the table's listing had them when planned (a file not
    listed counts 0)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LeftAlone(PlanRecord):
    """A pending instant the rollback node does not touch, and why."""

    instant: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RollbackEffect(PlanRecord):
    kind: Literal["rollback"] = "rollback"
    rollbacks: tuple[str, ...]
    files: int
    """Files the rollbacks delete (every action's ``delete_files``)."""
    rollback_blocks: int
    left_alone: tuple[LeftAlone, ...]
    bytes: int = 0
    """Bytes of those files as listed when planned."""
