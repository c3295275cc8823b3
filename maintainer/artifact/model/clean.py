"""The clean node's records: pending cleans to finish, files and partitions to delete, and the
effect the ``HoodieCleanerPlan`` payload is built from (with the files of the delete actions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishPendingClean(PlanRecord):
    """A clean left requested or inflight in the table: finished first, as Hudi does, only if
    its ``.clean.requested`` is still these bytes (``sha256``)."""

    kind: Literal["finish_pending_clean"] = "finish_pending_clean"
    target: str
    reason: str
    paths: tuple[str, ...]
    """Table-relative paths its plan deletes, sorted."""
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteFile(PlanRecord):
    """A file the new clean deletes (``target``: its table-relative path)."""

    kind: Literal["delete_file"] = "delete_file"
    target: str
    reason: str
    size: int
    partition: str

    @classmethod
    def many(cls, rows: Iterable[tuple[str, str, int, str]]) -> list[DeleteFile]:
        """``DeleteFile(target=, reason=, size=, partition=)`` of each row, made through the
        slots (a frozen dataclass's ``__init__`` costs twice as much; a clean lists every file)."""
        new = object.__new__
        set_kind, set_target, set_reason, set_size, set_partition = _DELETE_FILE_SETTERS
        made = []
        for target, reason, size, partition in rows:
            action = new(cls)
            set_kind(action, "delete_file")
            set_target(action, target)
            set_reason(action, reason)
            set_size(action, size)
            set_partition(action, partition)
            made.append(action)
        return made


_DELETE_FILE_SETTERS = tuple(
    vars(DeleteFile)[name].__set__ for name in ("kind", "target", "reason", "size", "partition")
)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeletePartition(PlanRecord):
    """A partition the new clean deletes (no file group is left in it)."""

    kind: Literal["delete_partition"] = "delete_partition"
    target: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanEffect(PlanRecord):
    """What the new clean records in its plan besides the files (Hudi's field names)."""

    kind: Literal["clean"] = "clean"
    files: int
    bytes: int
    policy: str
    scan: Literal["full", "incremental"]
    earliest_commit_to_retain: str | None
    earliest_commit_to_retain_action: str | None
    last_completed_commit: str
    savepointed_timestamps: tuple[str, ...]
    """As Hudi records them in the clean plan (none for a non-partitioned table)."""
    projected_instants: tuple[str, ...] = ()
    """Instant times that exist only in the plan's projection (this plan's new compaction):
    apply writes the real ones in their place."""
