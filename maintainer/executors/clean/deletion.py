"""Deleting a clean's files: checked on the driver, carried out in tasks (Spark tasks in
apply) that each take whole partitions (as many tasks as the runner runs at once: a task per
partition costs more in Spark scheduling than the deletes themselves).

Only Hudi data files (base and log files) inside the table, never anything under
``.hoodie``, may be deleted; anything else in a plan is refused before a single file goes.
A file that is already gone counts as deleted (a retried or resumed clean).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import NamedTuple

from maintainer.errors import ApplyError, StorageError
from maintainer.hudi.file_groups.filenames import is_data_file_name, is_partition_metadata
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner


class PartitionDeletion(NamedTuple):
    """The files of one partition to delete (names), and whether the emptied partition goes too
    (named tuples: thousands of them travel to and from Spark tasks, and pickle fast)."""

    partition: str
    names: tuple[str, ...]
    delete_partition: bool = False


class PartitionDeleted(NamedTuple):
    partition: str
    deleted: tuple[str, ...]
    """Deleted now or already gone (both count as deleted)."""
    failed: tuple[tuple[str, str], ...]
    """(name, error) of files that could not be deleted."""
    partition_deleted: bool = False
    already_gone: tuple[str, ...] = ()
    """The names in ``deleted`` that were gone before this delete (a retried clean)."""


# -- checks (driver) ---------------------------------------------------------------------------


def check_partition(partition: str, where: str) -> None:
    parts = partition.split("/") if partition else []
    if (
        partition.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
        or (parts and parts[0] == ".hoodie")
    ):
        raise ApplyError(
            f"refusing to delete in partition {partition!r}: not a partition of the table",
            where=where,
            hint="plans only delete data files inside the table's partitions; make the plan again",
        )


def check_deletion(deletion: PartitionDeletion, where: str) -> None:
    check_partition(deletion.partition, where)
    for name in deletion.names:
        if "/" in name or not is_data_file_name(name):
            raise ApplyError(
                f"refusing to delete {posixpath.join(deletion.partition, name)}: not a Hudi data file",
                where=where,
                hint="plans only delete base and log files; make the plan again",
            )


def split_relative(path: str) -> tuple[str, str]:
    """``"a/b/file"`` -> ``("a/b", "file")``; ``"file"`` -> ``("", "file")``."""
    partition, _, name = path.rpartition("/")
    return partition, name


def _scheme_less(uri: str) -> str:
    if uri.startswith("file:"):
        return "/" + uri[len("file:") :].lstrip("/")
    if "://" in uri:
        return uri.split("://", 1)[1]
    return uri


def table_base(storage: Storage) -> str:
    """The table's root as :func:`relative_to_table` compares paths with it."""
    return _scheme_less(storage.uri("")).rstrip("/") + "/"


def relative_to_table(storage: Storage, uri: str, where: str, base: str | None = None) -> str:
    """The table-relative path of an absolute file URI (as Hudi's plans record them);
    ``base``: :func:`table_base`, when the caller resolves many paths."""
    base = base if base is not None else table_base(storage)
    path = _scheme_less(uri)
    if not path.startswith(base):
        raise ApplyError(
            f"refusing to delete {uri}: it is outside the table {storage.base_uri}",
            where=where,
            hint="the clean plan does not belong to this table; remove the pending clean by hand",
        )
    relative = path[len(base) :]
    return relative if _is_normal(relative) else posixpath.normpath(relative)


def relative_to_table_under(storage: Storage, uri_base: str, paths: Sequence[str], where: str) -> list[str]:
    """:func:`relative_to_table` of ``uri_base + path`` for each of ``paths``: where the base is
    the table's own root, each path is itself (normalised), no URI is built and compared."""
    base = table_base(storage)
    if _scheme_less(uri_base) != base:
        return [relative_to_table(storage, uri_base + path, where, base) for path in paths]
    return [path if _is_normal(path) else posixpath.normpath(path) for path in paths]


def _is_normal(path: str) -> bool:
    """Whether ``normpath`` would leave the relative ``path`` as it is (no ``.`` or ``..``
    part, no empty part): string tests, spared for the thousands of paths of a clean plan."""
    if not path or path.startswith("/") or path.endswith("/") or "//" in path:
        return False
    framed = f"/{path}/"
    return "/./" not in framed and "/../" not in framed


def group_by_partition(
    paths: Sequence[str], partitions_to_delete: Sequence[str] = ()
) -> list[PartitionDeletion]:
    names: dict[str, list[str]] = {partition: [] for partition in partitions_to_delete}
    for path in paths:
        partition, name = split_relative(path)
        names.setdefault(partition, []).append(name)
    return [
        PartitionDeletion(partition, tuple(sorted(found)), partition in partitions_to_delete)
        for partition, found in sorted(names.items())
    ]


# -- the task (executors) ------------------------------------------------------------------------


def _only_partition_metadata_left(storage: Storage, partition: str) -> bool:
    return all(is_partition_metadata(entry.name) for entry in storage.list_dir(partition))


def delete_partition_files(storage: Storage, deletion: PartitionDeletion) -> PartitionDeleted:
    """Delete one partition's files (through the storage's batch API where it has one); an
    emptied partition's folder too when the plan says so."""
    prefix = f"{deletion.partition}/" if deletion.partition else ""
    done = storage.delete_many(prefix + name for name in deletion.names)
    cut = len(prefix)
    gone = [path[cut:] for path in done.gone]
    removed = {path[cut:] for path in done.deleted} | set(gone)
    deleted = [name for name in deletion.names if name in removed]  # in the plan's order
    failed = [(path[cut:], why) for path, why in done.failed]
    partition_deleted = False
    if deletion.delete_partition and deletion.partition and not failed:
        try:
            if not storage.exists(deletion.partition) or _only_partition_metadata_left(
                storage, deletion.partition
            ):
                storage.delete_dir(deletion.partition)
                partition_deleted = True
        except StorageError as exc:
            failed.append((deletion.partition, str(exc)))
    return PartitionDeleted(deletion.partition, tuple(deleted), tuple(failed), partition_deleted, tuple(gone))


DELETE_THREADS = 8
"""Deletes in flight per task on object stores (latency-bound)."""
LOCAL_DELETE_THREADS = 2
"""Per task on a local or mounted disk: an unlink takes microseconds and the loop around it
holds the GIL, so more threads only contend (a 50,000-file clean: 8 threads took 1.5x the
time of 2)."""


def delete_threads(storage: Storage) -> int:
    """Deletes in flight per task on ``storage``."""
    return LOCAL_DELETE_THREADS if storage.is_local else DELETE_THREADS


def batch_deletions(
    deletions: Sequence[PartitionDeletion], tasks: int
) -> list[tuple[PartitionDeletion, ...]]:
    """At most ``tasks`` batches of whole partitions, balanced by file count (largest first
    into the lightest batch); a partition is never split."""
    bins: list[list[PartitionDeletion]] = [[] for _ in range(max(1, min(tasks, len(deletions))))]
    loads = [0] * len(bins)
    for deletion in sorted(deletions, key=lambda d: (-len(d.names), d.partition)):
        lightest = loads.index(min(loads))
        bins[lightest].append(deletion)
        loads[lightest] += len(deletion.names) + 1
    return [tuple(sorted(b, key=lambda d: d.partition)) for b in bins if b]


def delete_batch(storage: Storage, batch: Sequence[PartitionDeletion]) -> list[PartitionDeleted]:
    """One task: its partitions' deletes, a few partitions at a time."""
    if len(batch) == 1:
        return [delete_partition_files(storage, batch[0])]
    with ThreadPoolExecutor(min(delete_threads(storage), len(batch))) as pool:
        return list(pool.map(partial(delete_partition_files, storage), batch))


def run_deletions(
    runner: TaskRunner, storage: Storage, deletions: Sequence[PartitionDeletion]
) -> list[PartitionDeleted]:
    """The deletions on ``runner``: partitions grouped into as many tasks as it runs at once,
    each task deleting several partitions concurrently (the storage travels with each task)."""
    batches = batch_deletions(deletions, runner.parallelism)
    results = runner.run(partial(delete_batch, storage), batches)
    return [result for batch in results for result in batch]


def deletion_totals(results: Sequence[PartitionDeleted]) -> Mapping[str, int]:
    return {
        "files_deleted": sum(len(r.deleted) for r in results),
        "files_failed": sum(len(r.failed) for r in results),
        "partitions_deleted": sum(1 for r in results if r.partition_deleted),
    }
