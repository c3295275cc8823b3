"""Archived-timeline records: v6 ``HoodieArchivedMetaEntry`` (one per instant file) and v8
``HoodieLSMTimelineInstant`` (one per action, holding the raw bytes of its files)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from maintainer.hudi.payloads.clean import CleanerPlan, CleanMetadata
from maintainer.hudi.payloads.clustering import RequestedReplaceMetadata
from maintainer.hudi.payloads.commit import CommitMetadata, ReplaceCommitMetadata
from maintainer.hudi.payloads.common import Record
from maintainer.hudi.payloads.compaction import CompactionPlan
from maintainer.hudi.payloads.rollback import RollbackMetadata
from maintainer.hudi.payloads.savepoint import SavepointMetadata


class _ToRecord(Protocol):
    def to_record(self) -> Record: ...


M = TypeVar("M")


def _optional(value: Mapping[str, Any] | None, convert: Callable[[Mapping[str, Any]], M]) -> M | None:
    return convert(value) if value is not None else None


def _record_or_none(value: _ToRecord | None) -> Record | None:
    return value.to_record() if value is not None else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchivedMetaEntry:
    """``HoodieArchivedMetaEntry``: one archived instant file (v6 archived timeline).

    Exactly one payload is set, chosen by action and state; ``compaction_metadata`` (deprecated)
    and ``index_commit_metadata`` stay plain records.
    """

    SCHEMA: ClassVar[str] = "HoodieArchivedMetaEntry"

    commit_time: str | None
    action_type: str | None
    action_state: str | None
    state_transition_time: str | None = None
    version: int | None = 1
    commit_metadata: CommitMetadata | None = None
    clean_metadata: CleanMetadata | None = None
    compaction_metadata: Mapping[str, Any] | None = None
    rollback_metadata: RollbackMetadata | None = None
    savepoint_metadata: SavepointMetadata | None = None
    compaction_plan: CompactionPlan | None = None
    cleaner_plan: CleanerPlan | None = None
    replace_commit_metadata: ReplaceCommitMetadata | None = None
    requested_replace_metadata: RequestedReplaceMetadata | None = None
    inflight_replace_metadata: CommitMetadata | None = None
    index_commit_metadata: Mapping[str, Any] | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ArchivedMetaEntry:
        get = record.get
        return cls(
            commit_time=get("commitTime"),
            action_type=get("actionType"),
            action_state=get("actionState"),
            state_transition_time=get("stateTransitionTime"),
            version=get("version", 1),
            commit_metadata=_optional(get("hoodieCommitMetadata"), CommitMetadata.from_record),
            clean_metadata=_optional(get("hoodieCleanMetadata"), CleanMetadata.from_record),
            compaction_metadata=get("hoodieCompactionMetadata"),
            rollback_metadata=_optional(get("hoodieRollbackMetadata"), RollbackMetadata.from_record),
            savepoint_metadata=_optional(get("hoodieSavePointMetadata"), SavepointMetadata.from_record),
            compaction_plan=_optional(get("hoodieCompactionPlan"), CompactionPlan.from_record),
            cleaner_plan=_optional(get("hoodieCleanerPlan"), CleanerPlan.from_record),
            replace_commit_metadata=_optional(
                get("hoodieReplaceCommitMetadata"), ReplaceCommitMetadata.from_record
            ),
            requested_replace_metadata=_optional(
                get("hoodieRequestedReplaceMetadata"), RequestedReplaceMetadata.from_record
            ),
            inflight_replace_metadata=_optional(
                get("HoodieInflightReplaceMetadata"), CommitMetadata.from_record
            ),
            index_commit_metadata=get("hoodieIndexCommitMetadata"),
        )

    def to_record(self) -> Record:
        return {
            "hoodieCommitMetadata": _record_or_none(self.commit_metadata),
            "hoodieCleanMetadata": _record_or_none(self.clean_metadata),
            "hoodieCompactionMetadata": self.compaction_metadata,
            "hoodieRollbackMetadata": _record_or_none(self.rollback_metadata),
            "hoodieSavePointMetadata": _record_or_none(self.savepoint_metadata),
            "commitTime": self.commit_time,
            "actionType": self.action_type,
            "version": self.version,
            "hoodieCompactionPlan": _record_or_none(self.compaction_plan),
            "hoodieCleanerPlan": _record_or_none(self.cleaner_plan),
            "actionState": self.action_state,
            "hoodieReplaceCommitMetadata": _record_or_none(self.replace_commit_metadata),
            "hoodieRequestedReplaceMetadata": _record_or_none(self.requested_replace_metadata),
            "HoodieInflightReplaceMetadata": _record_or_none(self.inflight_replace_metadata),
            "hoodieIndexCommitMetadata": self.index_commit_metadata,
            "stateTransitionTime": self.state_transition_time,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LSMTimelineInstant:
    """``HoodieLSMTimelineInstant``: one archived action of the v8 LSM timeline.

    ``metadata`` holds the bytes of the completed instant file, ``plan`` those of its plan.
    """

    SCHEMA: ClassVar[str] = "HoodieLSMTimelineInstant"

    instant_time: str | None
    completion_time: str | None
    action: str | None
    metadata: bytes | None = None
    plan: bytes | None = None
    version: int = 1

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> LSMTimelineInstant:
        return cls(
            instant_time=record.get("instantTime"),
            completion_time=record.get("completionTime"),
            action=record.get("action"),
            metadata=record.get("metadata"),
            plan=record.get("plan"),
            version=record.get("version", 1),
        )

    def to_record(self) -> Record:
        return {
            "instantTime": self.instant_time,
            "completionTime": self.completion_time,
            "action": self.action,
            "metadata": self.metadata,
            "plan": self.plan,
            "version": self.version,
        }
