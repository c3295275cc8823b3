"""Running one clean instant, as Hudi's CleanActionExecutor does: ``.clean.requested`` (the
plan) -> ``.clean.inflight`` (table version 6: the plan again, as Hudi 0.x writes it; 8+:
empty) -> the deletes (tasks of whole partitions, Spark tasks in apply) -> the completed
``clean`` with ``HoodieCleanMetadata`` v2. Every instant file goes through the TimelineWriter.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.errors import ApplyError
from maintainer.executors.clean.deletion import (
    PartitionDeleted,
    PartitionDeletion,
    check_deletion,
    group_by_partition,
    relative_to_table,
    relative_to_table_under,
    run_deletions,
    table_base,
)
from maintainer.executors.faults import maybe_fail
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import (
    CLEAN_PLAN_VERSION,
    CleanerPlan,
    CleanMetadata,
    CleanPartitionMetadata,
    FilesOfPaths,
    decode_cleaner_plan,
    encode_avro,
)
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner

SERVICE = "clean"
BeforeComplete = Callable[[Instant, CleanMetadata], object]
"""Called with the inflight clean and its metadata right before the clean completes."""
INFLIGHT_COPIES_PLAN_BELOW_VERSION = 8


@dataclass(frozen=True, slots=True)
class CleanRun:
    """A clean instant carried out: the completed instant, and what each partition did."""

    instant: Instant
    results: tuple[PartitionDeleted, ...]
    extra_metadata: dict[str, str]

    @property
    def files_deleted(self) -> int:
        return sum(len(r.deleted) for r in self.results)

    @property
    def failed(self) -> list[str]:
        return [path for path, _ in self.failures]

    @property
    def failures(self) -> list[tuple[str, str]]:
        """(path, why) of each file that could not be deleted."""
        return [
            (f"{r.partition}/{name}" if r.partition else name, error)
            for r in self.results
            for name, error in r.failed
        ]


GONE_IS_SUCCESS_FROM_VERSION = 8
"""Table versions written by Hudi 1.x, which records a file already gone as deleted."""


def plan_deletions(storage: Storage, plan: CleanerPlan, where: str) -> list[PartitionDeletion]:
    """The plan's files as checked per-partition deletions (refuses anything not a data file
    of this table, and bootstrap base files, which maintainer does not clean)."""
    paths = _relative_paths(storage, plan, where)
    for partition, names in (plan.files_to_be_deleted_per_partition or {}).items():
        paths += [f"{partition}/{name}" if partition else name for name in names]
    deletions = group_by_partition(paths, plan.partitions_to_be_deleted or ())
    for deletion in deletions:
        check_deletion(deletion, where)
    return deletions


def _relative_paths(storage: Storage, plan: CleanerPlan, where: str) -> list[str]:
    """The table-relative paths of the files of ``filePathsToBeDeletedPerPartition`` (refused
    outside the table, or a bootstrap base file); of a plan built as ``FilesOfPaths``, from its
    strings (no ``CleanFileInfo`` is made: none of them is a bootstrap base file)."""
    base = table_base(storage)
    files = plan.file_paths_to_be_deleted_per_partition
    if isinstance(files, FilesOfPaths):
        every = [path for in_partition in files.paths.values() for path in in_partition]
        return relative_to_table_under(storage, files.base, every, where)
    paths: list[str] = []
    for partition, infos in (files or {}).items():
        for info in infos:
            if info.is_bootstrap_base_file or not info.file_path:
                raise ApplyError(
                    f"the clean plan deletes a bootstrap base file in {partition!r}: not supported",
                    where=where,
                    hint="finish this clean with Hudi",
                )
            paths.append(relative_to_table(storage, info.file_path, where, base))
    return paths


def keep_only(deletions: Sequence[PartitionDeletion], only: frozenset[str]) -> list[PartitionDeletion]:
    """The deletions restricted to the table-relative paths in ``only``; a partition that keeps
    one of its files is not deleted, and one left with nothing to do is dropped."""
    kept: list[PartitionDeletion] = []
    for deletion in deletions:
        names = tuple(n for n in deletion.names if posixpath.join(deletion.partition, n) in only)
        if names == deletion.names:
            kept.append(deletion)
        elif names:
            kept.append(PartitionDeletion(deletion.partition, names))
    return kept


def _recorded(result: PartitionDeleted, gone_is_success: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(successDeleteFiles, failedDeleteFiles) as Hudi records them: a file already gone is a
    success in Hudi 1.x (CleanActionExecutor.deleteFileAndGetResult treats FileNotFound as done),
    a failed delete in 0.14 (its delete returned false)."""
    failed = tuple(name for name, _ in result.failed)
    if gone_is_success or not result.already_gone:
        return result.deleted, failed
    gone = set(result.already_gone)
    return tuple(n for n in result.deleted if n not in gone), (*failed, *result.already_gone)


def clean_metadata(
    instant_time: str, plan: CleanerPlan, deletions: Sequence[PartitionDeletion],
    results: Sequence[PartitionDeleted], millis: int, gone_is_success: bool = True,
) -> CleanMetadata:  # fmt: skip
    """HoodieCleanMetadata as CleanerUtils.convertCleanMetadata builds it (an empty
    ``bootstrapPartitionMetadata`` map, totalFilesDeleted = the successful deletes)."""
    by_partition = {r.partition: r for r in results}
    partitions = {}
    total = 0
    for deletion in deletions:
        result = by_partition[deletion.partition]
        success, failed = _recorded(result, gone_is_success)
        total += len(success)
        partitions[deletion.partition] = CleanPartitionMetadata(
            partition_path=deletion.partition,
            policy=plan.policy,
            delete_path_patterns=deletion.names,
            success_delete_files=success,
            failed_delete_files=failed,
            is_partition_deleted=deletion.delete_partition and result.partition_deleted,
        )
    ectr = plan.earliest_instant_to_retain
    return CleanMetadata(
        start_clean_time=instant_time,
        time_taken_in_millis=millis,
        total_files_deleted=total,
        earliest_commit_to_retain=ectr.timestamp if ectr else "",
        last_completed_commit_timestamp=plan.last_completed_commit_timestamp,
        partition_metadata=partitions,
        version=CLEAN_PLAN_VERSION,
        bootstrap_partition_metadata={},
        extra_metadata=dict(plan.extra_metadata) if plan.extra_metadata is not None else None,
    )


def _inflight_content(writer: TimelineWriter, plan_bytes: bytes) -> bytes:
    return plan_bytes if writer.config.version < INFLIGHT_COPIES_PLAN_BELOW_VERSION else b""


def run_clean_instant(
    writer: TimelineWriter, plan_bytes: bytes, tasks: TaskRunner, pending: Instant | None = None,
    only: frozenset[str] | None = None, before_complete: BeforeComplete | None = None,
    plan: CleanerPlan | None = None, instant_time: str | None = None,
) -> CleanRun:  # fmt: skip
    """Write (or resume, given a ``pending`` instant) one clean instant and do its deletes
    (given ``only``, just those of its files: the completed metadata records just them).
    ``before_complete`` runs right before the clean completes (the metadata table's sync).
    ``plan``: the plan ``plan_bytes`` encode, when the caller built them from it (decoding the
    bytes gives an equal plan; tests hold the round trip), saving the decode of a big plan.
    ``instant_time``: the new clean's time (default: a fresh one from the writer)."""
    storage = writer.storage
    where = f"clean plan in {storage.base_uri}"
    plan = plan if plan is not None else decode_cleaner_plan(plan_bytes, where)
    if plan is None:
        raise ApplyError("the clean plan is empty", where=where, hint="remove the pending clean by hand")
    deletions = plan_deletions(storage, plan, where)
    if only is not None:
        deletions = keep_only(deletions, only)
    started = time.perf_counter()
    instant = pending or writer.create_requested(Action.CLEAN, plan_bytes, instant_time=instant_time)
    with writer.heartbeat(instant.timestamp):
        maybe_fail(SERVICE, "after_requested")
        if instant.state is State.REQUESTED:
            instant = writer.transition_to_inflight(instant, _inflight_content(writer, plan_bytes))
        maybe_fail(SERVICE, "after_inflight")
        results = run_deletions(tasks, storage, deletions)
        maybe_fail(SERVICE, "after_deletes")
        millis = int((time.perf_counter() - started) * 1000)
        gone_is_success = writer.config.version >= GONE_IS_SUCCESS_FROM_VERSION
        metadata = clean_metadata(instant.timestamp, plan, deletions, results, millis, gone_is_success)
        if before_complete is not None:
            before_complete(instant, metadata)
            maybe_fail(SERVICE, "after_metadata_table")
        completed = writer.complete(instant, encode_avro(metadata))
    return CleanRun(completed, tuple(results), dict(plan.extra_metadata or {}))


def read_requested_plan(writer: TimelineWriter, instant: Instant) -> bytes:
    timeline = writer.timeline()
    path = timeline.file_path(instant, State.REQUESTED)
    return writer.storage.read_bytes(path)
