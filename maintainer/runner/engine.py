"""Where apply runs a node (the target's ``engine``: ``auto``, ``local`` or ``spark``). With
``auto``, only data rewrites (compactions, clusterings) run on Spark; deletes (cleans, rollbacks), savepoints,
archival and metadata-table work run in the driver process: a delete is one storage request
(S3: 1,000 in one), which Spark tasks only make dearer (a JVM, task scheduling, Python workers:
bench/clean.py measures both). A plan whose nodes all run in process never starts a JVM."""

from __future__ import annotations

from maintainer.artifact.model import (
    ClusterGroup,
    CompactSlice,
    DeleteFile,
    ExecutePendingClustering,
    ExecutePendingCompaction,
    FinishPendingClean,
    NodePlan,
    RollbackAction,
)


def files_deleted(node: NodePlan) -> int:
    deletes = len(node.actions_of(DeleteFile))
    deletes += sum(len(action.paths) for action in node.actions_of(FinishPendingClean))
    return deletes + sum(len(action.delete_files) for action in node.actions_of(RollbackAction))


def runs_on_spark(node: NodePlan, engine: str) -> bool:
    """Does ``node`` run its tasks on Spark under ``engine``?"""
    if engine != "auto":
        return engine == "spark"
    rewrites = len(node.actions_of(CompactSlice)) + len(node.actions_of(ExecutePendingCompaction))
    rewrites += len(node.actions_of(ClusterGroup)) + len(node.actions_of(ExecutePendingClustering))
    return rewrites > 0  # rewrites data: the work Spark is for
