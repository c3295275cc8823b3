"""The clean planner's per-partition rules on the columnar view (:mod:`maintainer.hudi.file_groups.columnar`):
the same deletions, reasons and sizes as :func:`maintainer.services.clean.planner.plan_partition`,
as group filters and joins over a batch of partitions at a time; objects only for the deleted
files.

Per slice (its file group's facts joined on): savepointed (a file of it is), needed by a
pending compaction, log compaction or clustering (its base instant at or after the earliest
operation's base instant), the latest of its group, the latest before the earliest commit to
retain, its rank among the group's slices newest first (file versions); the rules of
:mod:`.planner` as one boolean expression each.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import polars as pl

from maintainer.hudi.file_groups.columnar import UNLISTED_SIZE, ColumnarBatch, view_batches
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs, dir_listing
from maintainer.services.clean.planner import (
    CleanInputs,
    FileToDelete,
    PartitionClean,
    PartitionsPlanner,
)
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.storage import FileInfo

_COMPACTION_ACTIONS = frozenset({"compaction", "logcompaction"})
_GROUP = ("part", "file_id")
_SLICE = ("part", "file_id", "slice")
_DELETION_SETTERS = tuple(
    vars(FileToDelete)[f].__set__ for f in ("partition", "name", "size", "reason", "path")
)


def _deletion(partition: str, name: str, size: int, reason: str) -> FileToDelete:
    """``FileToDelete(...)`` through its slots, as :meth:`FileToDelete.of` makes it."""
    deletion: FileToDelete = object.__new__(FileToDelete)
    set_partition, set_name, set_size, set_reason, set_path = _DELETION_SETTERS
    set_partition(deletion, partition)
    set_name(deletion, name)
    set_size(deletion, size)
    set_reason(deletion, reason)
    set_path(deletion, f"{partition}/{name}" if partition else name)
    return deletion


def _group_facts(partitions: tuple[str, ...], inputs: ViewInputs) -> pl.DataFrame:
    """Per file group of the batch with a replacement or a pending operation: ``replaced_at``,
    ``needed_from`` (the earliest base instant a pending operation needs) and
    ``compaction_from`` (the same, of compactions and log compactions only)."""
    index = {partition: i for i, partition in enumerate(partitions)}
    facts: dict[tuple[int, str], list[str | None]] = {}

    def fact(key: tuple[str, str]) -> list[str | None] | None:
        part = index.get(key[0])
        if part is None:
            return None
        return facts.setdefault((part, key[1]), [None, None, None])

    for key, replaced_at in inputs.replaced_file_groups.items():
        if (found := fact(key)) is not None:
            found[0] = replaced_at
    operations: Iterable[tuple[tuple[str, str], PendingOperation]] = (
        *inputs.pending_compaction.items(),
        *inputs.pending_log_compaction.items(),
        *inputs.pending_clustering.items(),
    )
    for key, op in operations:
        if (found := fact(key)) is None:
            continue
        floor = op.base_instant or op.instant_time
        found[1] = floor if found[1] is None else min(found[1], floor)
        if op.action in _COMPACTION_ACTIONS:
            found[2] = floor if found[2] is None else min(found[2], floor)
    rows = [(part, file_id, *values) for (part, file_id), values in facts.items()]
    schema = {"part": pl.UInt32, "file_id": pl.String, "replaced_at": pl.String,
              "needed_from": pl.String, "compaction_from": pl.String}  # fmt: skip
    return pl.DataFrame(rows, schema=schema, orient="row")


def _slices_with_facts(batch: ColumnarBatch, inputs: ViewInputs, savepointed: frozenset[str]) -> pl.DataFrame:
    """The batch's slices, newest first per group, with their group's facts and ``saved``."""
    slices = batch.slices.join(_group_facts(batch.partitions, inputs), on=_GROUP, how="left")
    if savepointed:
        saved = (
            batch.files.filter(
                pl.col("name").is_in(pl.Series(sorted(savepointed), dtype=pl.String).implode())
            )
            .select(*_SLICE)
            .unique()
            .with_columns(pl.lit(True).alias("saved"))
        )
        slices = slices.join(saved, on=_SLICE, how="left").with_columns(pl.col("saved").fill_null(False))
    else:
        slices = slices.with_columns(pl.lit(False).alias("saved"))
    return slices.sort(["part", "file_id", "slice"], descending=[False, False, True])


def _needed(floor: str) -> pl.Expr:
    return pl.col(floor).is_not_null() & (pl.col("slice") >= pl.col(floor))


def _by_commits(ectr: str) -> tuple[pl.Expr, pl.Expr]:
    """KEEP_LATEST_COMMITS / BY_HOURS (``planner._clean_by_commits``): delete, reason."""
    slice_ = pl.col("slice")
    latest = slice_.max().over(_GROUP)
    latest_before = slice_.filter(slice_ < ectr).max().over(_GROUP)
    delete = (
        slice_.ne_missing(latest)
        & slice_.ne_missing(latest_before)
        & (slice_ < ectr)
        & ~pl.col("saved")
        & ~_needed("needed_from")
    )
    reason = pl.format(
        "slice {} is older than the earliest commit to retain "
        + ectr
        + " and a newer slice before it is kept",
        slice_,
    )
    return delete, reason


def _by_versions(retained: int) -> tuple[pl.Expr, pl.Expr]:
    """KEEP_LATEST_FILE_VERSIONS (``planner._clean_by_versions``): delete, reason (on slices
    newest first per group)."""
    by_compaction = _needed("compaction_from")
    counted = (~by_compaction).cast(pl.Int64).cum_sum().over(_GROUP) - 1
    keep = pl.when(pl.col("compaction_from").is_not_null()).then(retained - 1).otherwise(retained)
    delete = ~by_compaction & (counted >= keep) & ~pl.col("saved") & ~_needed("needed_from")
    return delete, pl.lit(f"older than the {retained} newest file versions")


def _deleted_slices(slices: pl.DataFrame, settings: CleanSettings, ectr: str | None) -> pl.DataFrame:
    """(part, file_id, slice, reason) of the slices to delete."""
    versions = settings.policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS
    if versions:
        delete, reason = _by_versions(settings.file_versions_retained)
    elif ectr is not None:
        delete, reason = _by_commits(ectr)
    else:
        delete, reason = pl.lit(False), pl.lit("")
    replaced_at = pl.col("replaced_at")
    eligible = replaced_at.is_not_null()
    if not versions:
        eligible = eligible & (replaced_at < ectr) if ectr is not None else pl.lit(False)
    replaced_reason = pl.format("file group replaced by replacecommit {}", replaced_at)
    return (
        slices.with_columns(
            pl.when(eligible)
            .then(~pl.col("saved"))
            .when(replaced_at.is_not_null())
            .then(False)
            .otherwise(delete)
            .alias("delete"),
            pl.when(eligible).then(replaced_reason).otherwise(reason).alias("reason"),
        )
        .filter(pl.col("delete"))
        .select(*_SLICE, "reason")
    )


def _sized(
    partition: str, names: list[str], sizes: list[int | None], listings: Mapping[str, Iterable[FileInfo]]
) -> list[int | None]:
    """The sizes of a partition's deleted files, those a names-only listing had not asked for
    asked now of the listing (one ``stat`` per deleted file, not per listed one)."""
    unlisted = [name for name, size in zip(names, sizes, strict=True) if size == UNLISTED_SIZE]
    asked = iter(dir_listing(listings, partition).sizes_of(unlisted))
    return [next(asked) if size == UNLISTED_SIZE else size for size in sizes]


def plan_batch(
    batch: ColumnarBatch,
    inputs: ViewInputs,
    settings: CleanSettings,
    ectr: str | None,
    savepointed: frozenset[str],
    listings: Mapping[str, Iterable[FileInfo]] | None,
) -> Iterator[PartitionClean]:
    """The partitions of the batch with something to delete, in the batch's order; a deleted
    file's size a names-only listing has not stat'ed is asked of ``listings`` (the batch's;
    None: left :data:`UNLISTED_SIZE`)."""
    slices = _slices_with_facts(batch, inputs, savepointed)
    chosen = _deleted_slices(slices, settings, ectr).with_row_index("chosen")
    if not chosen.height:
        return
    deleted = (
        batch.files.join(chosen.select(*_SLICE, "chosen"), on=_SLICE, how="inner")
        .select("part", "name", "size", "chosen")
        .sort("part", "name")
    )
    reasons = chosen.get_column("reason").to_list()  # one string per slice, shared by its files
    partitions = batch.partitions
    rows: dict[int, tuple[list[str], list[int | None], list[str]]] = {}
    columns = (deleted.get_column(c).to_list() for c in ("part", "name", "size", "chosen"))
    for part, name, size, index in zip(*columns, strict=True):
        row = rows.get(part)
        if row is None:
            rows[part] = row = ([], [], [])
        row[0].append(name)
        row[1].append(size)
        row[2].append(reasons[index])
    by_part: dict[int, list[FileToDelete]] = {}
    for part, (names, listed_sizes, why) in rows.items():
        partition = partitions[part]
        sizes = (
            _sized(partition, names, listed_sizes, listings)
            if listings is not None and UNLISTED_SIZE in listed_sizes
            else listed_sizes
        )
        by_part[part] = [
            _deletion(partition, n, s or 0, r) for n, s, r in zip(names, sizes, why, strict=True)
        ]
    files_per_part = dict(batch.files.group_by("part").len().iter_rows())
    for part, files in by_part.items():  # in partition order: sorted by part
        partition = partitions[part]
        emptied = (
            bool(partition) and len(files) == files_per_part.get(part, 0) and not batch.uncommitted.get(part)
        )
        yield PartitionClean(partition, tuple(files), emptied)


def columnar_partitions(
    listings: Mapping[str, Iterable[FileInfo]], *, sizes: bool = True
) -> PartitionsPlanner:
    """A planner of every partition of ``listings`` (the partitions ``inputs.view`` covers),
    for :func:`maintainer.services.clean.planner.plan_clean`. ``sizes=False``: the sizes of
    deleted files a names-only listing has not read are not asked (left :data:`UNLISTED_SIZE`)."""

    def plan(inputs: CleanInputs, settings: CleanSettings, ectr: str | None) -> Iterator[PartitionClean]:
        view = inputs.view
        for batch in view_batches(view.timeline, listings, view.inputs):
            yield from plan_batch(
                batch, view.inputs, settings, ectr, inputs.savepointed_files, listings if sizes else None
            )

    return plan
