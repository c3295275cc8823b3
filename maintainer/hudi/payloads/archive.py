"""Archived-timeline records: v6 ``HoodieArchivedMetaEntry`` (one per instant file) and v8
``HoodieLSMTimelineInstant`` (one per action, holding the raw bytes of its files)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from maintainer.hudi.payloads.clean import CleanerPlan, CleanMetadata
from maintainer.hudi.payloads.clustering import RequestedReplaceMetadata
from maintainer.hudi.payloads.commit import CommitMetadata, ReplaceCommitMetadata
from maintainer.hudi.payloads.compaction import CompactionPlan
from maintainer.hudi.payloads.records import AvroRecord, avro
from maintainer.hudi.payloads.rollback import RollbackMetadata
from maintainer.hudi.payloads.savepoint import SavepointMetadata


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchivedMetaEntry(AvroRecord):
    """``HoodieArchivedMetaEntry``: one archived instant file (v6 archived timeline).

    Exactly one payload is set, chosen by action and state; ``compaction_metadata`` (deprecated)
    and ``index_commit_metadata`` stay plain records.
    """

    SCHEMA: ClassVar[str] = "HoodieArchivedMetaEntry"

    commit_time: str | None = field(metadata=avro("commitTime"))
    action_type: str | None = field(metadata=avro("actionType"))
    action_state: str | None = field(metadata=avro("actionState"))
    state_transition_time: str | None = field(default=None, metadata=avro("stateTransitionTime"))
    version: int | None = field(default=1, metadata=avro("version", missing=1))
    commit_metadata: CommitMetadata | None = field(default=None, metadata=avro("hoodieCommitMetadata"))
    clean_metadata: CleanMetadata | None = field(default=None, metadata=avro("hoodieCleanMetadata"))
    compaction_metadata: Mapping[str, Any] | None = field(
        default=None, metadata=avro("hoodieCompactionMetadata")
    )
    rollback_metadata: RollbackMetadata | None = field(default=None, metadata=avro("hoodieRollbackMetadata"))
    savepoint_metadata: SavepointMetadata | None = field(
        default=None, metadata=avro("hoodieSavePointMetadata")
    )
    compaction_plan: CompactionPlan | None = field(default=None, metadata=avro("hoodieCompactionPlan"))
    cleaner_plan: CleanerPlan | None = field(default=None, metadata=avro("hoodieCleanerPlan"))
    replace_commit_metadata: ReplaceCommitMetadata | None = field(
        default=None, metadata=avro("hoodieReplaceCommitMetadata")
    )
    requested_replace_metadata: RequestedReplaceMetadata | None = field(
        default=None, metadata=avro("hoodieRequestedReplaceMetadata")
    )
    inflight_replace_metadata: CommitMetadata | None = field(
        default=None, metadata=avro("HoodieInflightReplaceMetadata")
    )
    index_commit_metadata: Mapping[str, Any] | None = field(
        default=None, metadata=avro("hoodieIndexCommitMetadata")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class LSMTimelineInstant(AvroRecord):
    """``HoodieLSMTimelineInstant``: one archived action of the v8 LSM timeline.

    ``metadata`` holds the bytes of the completed instant file, ``plan`` those of its plan.
    """

    SCHEMA: ClassVar[str] = "HoodieLSMTimelineInstant"

    instant_time: str | None = field(metadata=avro("instantTime"))
    completion_time: str | None = field(metadata=avro("completionTime"))
    action: str | None = field(metadata=avro("action"))
    metadata: bytes | None = field(default=None, metadata=avro("metadata"))
    plan: bytes | None = field(default=None, metadata=avro("plan"))
    version: int = field(default=1, metadata=avro("version", missing=1))
