"""Where apply runs a node: in the driver process when its work is small, on Spark otherwise
(the target's ``engine``: ``auto``, ``local`` or ``spark``). A plan whose nodes all run in
process never starts a JVM."""

from __future__ import annotations

from maintainer.plan.model import (
    CompactSlice,
    DeleteFile,
    ExecutePendingCompaction,
    FinishPendingClean,
    NodePlan,
    RollbackAction,
)

IN_PROCESS_MAX_FILES = 2000
"""Cleans and rollbacks deleting at most this many files run in process with ``auto``: a
delete is one storage request, cheaper than starting Spark (seconds) below a few thousand."""


def files_deleted(node: NodePlan) -> int:
    deletes = len(node.actions_of(DeleteFile))
    deletes += sum(len(action.paths) for action in node.actions_of(FinishPendingClean))
    return deletes + sum(len(action.delete_files) for action in node.actions_of(RollbackAction))


def runs_on_spark(node: NodePlan, engine: str) -> bool:
    """Does ``node`` run its tasks on Spark under ``engine``?"""
    if engine != "auto":
        return engine == "spark"
    rewrites = len(node.actions_of(CompactSlice)) + len(node.actions_of(ExecutePendingCompaction))
    if rewrites:
        return True  # rewrites data: the work Spark is for
    return files_deleted(node) > IN_PROCESS_MAX_FILES
