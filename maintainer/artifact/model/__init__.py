"""The plan model: nodes, their typed actions and effects (one module per service), and the
plan's JSON form. Everything a planner produces and apply executes is one of these records."""

from maintainer.artifact.model.archive import ArchiveBoundary, ArchiveEffect, ArchiveInstant
from maintainer.artifact.model.clean import CleanEffect, DeleteFile, DeletePartition, FinishPendingClean
from maintainer.artifact.model.clustering import (
    ClusterGroup,
    ClusteringEffect,
    ClusterSlice,
    ExecutePendingClustering,
    Layout,
)
from maintainer.artifact.model.common import METADATA_TABLE_PATH, DropMetadataTable, SyncMetadataTable
from maintainer.artifact.model.compaction import (
    CompactionEffect,
    CompactSlice,
    DeferredSlice,
    ExecutePendingCompaction,
    SkippedSliceRecord,
    SliceFile,
    slice_target,
)
from maintainer.artifact.model.metadata import (
    ArchiveMetadataTable,
    CleanMetadataTable,
    CompactMetadataTable,
    MetadataEffect,
)
from maintainer.artifact.model.nodes import (
    FORMAT_VERSION,
    Action,
    ActionRecord,
    Effect,
    EffectRecord,
    NodePlan,
    NodeStatus,
    Plan,
    TableFingerprint,
    TablePlan,
    dump_body,
    plan_adapter,
    read_body,
    read_body_json,
)
from maintainer.artifact.model.orphans import OrphanEffect, OrphanKind, RemoveOrphanFile
from maintainer.artifact.model.rollback import (
    LeftAlone,
    RollbackAction,
    RollbackEffect,
    RollbackKind,
    RollbackRequestRecord,
)
from maintainer.artifact.model.savepoint import CreateSavepoint, DeleteSavepoint, SavepointEffect

__all__ = [
    "FORMAT_VERSION",
    "METADATA_TABLE_PATH",
    "Action",
    "ActionRecord",
    "ArchiveBoundary",
    "ArchiveEffect",
    "ArchiveInstant",
    "ArchiveMetadataTable",
    "CleanEffect",
    "CleanMetadataTable",
    "ClusterGroup",
    "ClusterSlice",
    "ClusteringEffect",
    "CompactMetadataTable",
    "CompactSlice",
    "CompactionEffect",
    "CreateSavepoint",
    "DeferredSlice",
    "DeleteFile",
    "DeletePartition",
    "DeleteSavepoint",
    "DropMetadataTable",
    "Effect",
    "EffectRecord",
    "ExecutePendingClustering",
    "ExecutePendingCompaction",
    "FinishPendingClean",
    "Layout",
    "LeftAlone",
    "MetadataEffect",
    "NodePlan",
    "NodeStatus",
    "OrphanEffect",
    "OrphanKind",
    "Plan",
    "RemoveOrphanFile",
    "RollbackAction",
    "RollbackEffect",
    "RollbackKind",
    "RollbackRequestRecord",
    "SavepointEffect",
    "SkippedSliceRecord",
    "SliceFile",
    "SyncMetadataTable",
    "TableFingerprint",
    "TablePlan",
    "dump_body",
    "plan_adapter",
    "read_body",
    "read_body_json",
    "slice_target",
]
