"""The ``HoodieCleanerPlan`` a clean node writes into ``.clean.requested``, built from the node
alone (its effect and delete actions), so the plan side (which stores it in the plan directory)
and the apply side (which rebuilds it from the approved plan and compares bytes) make the very
same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from maintainer.artifact.model import CleanEffect, DeleteFile, DeletePartition, NodePlan
from maintainer.hudi.payloads import ActionInstant, CleanerPlan, FilesOfPaths, encode_avro
from maintainer.services.common.checks import effect_of
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.storage import Storage

"""extraMetadata key of the clean plan and clean metadata: the plan the clean came from."""
SAVEPOINTED_TIMESTAMPS_KEY = "savepointed_timestamps"
"""extraMetadata key Hudi's CleanerUtils writes: the savepoint times when the clean was planned."""


def partition_of(path: str) -> str:
    """The partition of a table-relative file path ("" for a non-partitioned table)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _files_per_partition(storage: Storage, paths: Iterable[str]) -> FilesOfPaths:
    """The files to delete, per partition: partitions sorted, each one's paths sorted (one sort:
    a plan's delete actions are already in order, which a sort goes through in one pass), kept
    as strings (the payload is written from them, no ``CleanFileInfo`` per file)."""
    grouped: dict[str, list[str]] = {}
    for path in sorted(paths):
        partition = path.rpartition("/")[0]  # partition_of(path)
        in_partition = grouped.get(partition)
        if in_partition is None:
            grouped[partition] = in_partition = []
        in_partition.append(path)
    base = storage.uri("") + "/"  # storage.uri(path) is base + path, computed once
    return FilesOfPaths(base, dict(sorted(grouped.items())))


def _earliest_instant(effect: CleanEffect) -> ActionInstant | None:
    timestamp = effect.earliest_commit_to_retain
    if not timestamp or effect.earliest_commit_to_retain_action is None:
        return None
    return ActionInstant(
        timestamp=timestamp, action=effect.earliest_commit_to_retain_action, state="COMPLETED"
    )


def approved_deletions(node: NodePlan) -> tuple[list[str], list[str]]:
    """The table-relative files and the partitions a clean node deletes, in plan order."""
    files: list[str] = []
    partitions: list[str] = []
    for action in node.actions:  # one pass over a clean's many actions
        if isinstance(action, DeleteFile):
            files.append(action.target)
        elif isinstance(action, DeletePartition):
            partitions.append(action.target)
    return files, partitions


def cleaner_plan_for(
    effect: CleanEffect,
    storage: Storage,
    plan_id: str,
    delete_paths: Sequence[str],
    partitions_to_delete: Sequence[str],
) -> CleanerPlan:
    """The clean plan of a clean node's ``effect`` deleting these files and partitions
    (table-relative: the node's own at plan time, the intersection with the table at apply)."""
    return CleanerPlan(
        policy=effect.policy,
        earliest_instant_to_retain=_earliest_instant(effect),
        last_completed_commit_timestamp=effect.last_completed_commit,
        files_to_be_deleted_per_partition={},
        file_paths_to_be_deleted_per_partition=_files_per_partition(storage, delete_paths),
        partitions_to_be_deleted=tuple(sorted(partitions_to_delete)),
        extra_metadata=_extra_metadata(effect.savepointed_timestamps, plan_id),
    )


def _extra_metadata(savepointed: Sequence[str], plan_id: str) -> dict[str, str]:
    """Hudi records the savepoint times only when there are some (partitioned tables only,
    which the effect already reflects); the plan id is always there (the ledger)."""
    if not savepointed:
        return {PLAN_ID_KEY: plan_id}
    return {SAVEPOINTED_TIMESTAMPS_KEY: ",".join(savepointed), PLAN_ID_KEY: plan_id}


def cleaner_plan_bytes(
    effect: CleanEffect,
    storage: Storage,
    plan_id: str,
    delete_paths: Sequence[str],
    partitions_to_delete: Sequence[str],
) -> bytes:
    """The exact bytes of ``.clean.requested`` (see :func:`cleaner_plan_for`)."""
    return encode_avro(cleaner_plan_for(effect, storage, plan_id, delete_paths, partitions_to_delete))


def node_cleaner_plan_bytes(node: NodePlan, storage: Storage, plan_id: str) -> bytes:
    """The ``.clean.requested`` bytes of a clean node as planned (its payload)."""
    return node_cleaner_plan(node, storage, plan_id)[1]


def node_cleaner_plan(node: NodePlan, storage: Storage, plan_id: str) -> tuple[CleanerPlan, bytes]:
    """The clean plan of a clean node as planned, and its bytes. Built once at plan time (the
    payload written into the plan directory) and once at apply, by the up-front check of the
    whole plan, which hands the plan and its checked bytes on to the node
    (``NodeContext.checked_payloads``)."""
    files, partitions = approved_deletions(node)
    plan = cleaner_plan_for(effect_of(node, CleanEffect), storage, plan_id, files, partitions)
    return plan, encode_avro(plan)
