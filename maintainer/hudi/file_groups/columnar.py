"""The file-system view column-wise: one row per data file, for a batch of partitions at once.

The same rules as :mod:`.fsview` (HUDI.md §2-§3), as frame operations instead of a loop per file:

* names are parsed for all files at once (polars regular expressions: the plain patterns of
  :mod:`.filenames`, with ASCII classes); the few names they do not match are asked of the
  full patterns one by one (:func:`.datafiles.parse_data_file_name`, the reference), so every
  name parses as the object view parses it;
* a file is visible when its instant completed, is older than the start of the write timeline,
  or (layout 1) is a log named by a pending compaction; the others are counted as uncommitted;
* a slice is a base instant: a base file's own, a pending compaction's, and on layout 1 a log's
  (it names its slice); on layout 2 a log goes to the greatest base or pending-compaction
  instant at or before its deltacommit's completion time, a join per file group. A file group
  where that leaves a log without a slice (completed before every base, or its completion time
  unknown) is placed by the object view's own rule (``fsview``'s sequential one, where a log
  may open a slice the next logs join): rare, and exactly as the object view places it.

Python objects are made only for what a consumer lists (:mod:`maintainer.services.clean.columnar`
makes one per deleted file). A :class:`ColumnarBatch` holds a batch of partitions; callers walk a
table batch by batch (:func:`view_batches`), so memory follows the batch, not the table.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from maintainer.hudi.file_groups import fsview
from maintainer.hudi.file_groups.datafiles import parse_data_file_name
from maintainer.hudi.file_groups.filemodel import LogFile
from maintainer.hudi.file_groups.filenames import PARTITION_METADATA_PREFIX
from maintainer.hudi.file_groups.fsview import ViewInputs, dir_listing
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo
from maintainer.storage.columns import SEPARATOR, Names, OptionalInts
from maintainer.storage.listing import DirListing

BATCH_FILES = 10_000
"""Listed entries per batch of partitions (a partition is never split). Measured on the bench's
100,000-file table: batches of 10,000 to 100,000 entries cost the same CPU, 5,000 a third more;
the net peak of a plan with nothing to delete is 32 MB at 10,000, 82 MB at 100,000."""

_BASE = r"^([a-zA-Z0-9-]+)_[0-9]+-[0-9]+-[0-9]+_([0-9]{14,17})\.(?:parquet|orc|hfile|lance)$"
_LOG = r"^\.([^_]+)_([0-9]*)\.log\.([0-9]+)(?:_([0-9]+-[0-9]+-[0-9]+))?$"
"""``filenames.PLAIN_BASE_FILE_PATTERN`` and ``PLAIN_LOG_FILE_PATTERN`` as full matches."""

FILE_COLUMNS = {
    "part": pl.UInt32,
    "name": pl.String,
    "size": pl.Int64,
    "is_log": pl.Boolean,
    "file_id": pl.String,
    "instant": pl.String,
    "log_version": pl.Int64,
    "write_token": pl.String,
}
"""A parsed data file: ``part`` indexes the batch's partitions."""
PLACED_COLUMNS = [*FILE_COLUMNS, "slice"]
"""A data file placed in its slice (the base instant of the slice)."""


@dataclass(frozen=True)
class ColumnarBatch:
    """The view of a batch of partitions.

    ``files``: one row per visible data file (:data:`FILE_COLUMNS` and ``slice``, its slice's
    base instant); ``slices``: one row per slice (``part``, ``file_id``, ``slice``), also the
    empty ones a pending compaction opens; ``uncommitted``: per partition index, how many of
    its data files no completed instant wrote (failed or running writes)."""

    partitions: tuple[str, ...]
    files: pl.DataFrame
    slices: pl.DataFrame
    uncommitted: Mapping[int, int]


# -- listing to frame ---------------------------------------------------------------------


def _entries(listing: DirListing) -> tuple[list[str], list[int | None]]:
    """Names and sizes of the listing's entries that are not folders (:data:`UNLISTED_SIZE`
    where a names-only listing has not asked for them)."""
    names = listing.names.as_list() if isinstance(listing.names, Names) else list(listing.names)
    sizes: list[int | None] = list(listing.sizes) if listing.sizes_listed else [UNLISTED_SIZE] * len(names)
    if True not in listing.is_dir:
        return names, sizes
    kept = [index for index, is_dir in enumerate(listing.is_dir) if not is_dir]
    return [names[i] for i in kept], [sizes[i] for i in kept]


UNLISTED_SIZE = -1
"""The ``size`` of a file a names-only listing did not stat (:mod:`maintainer.storage.names_only`):
readers that need it ask the listing (:meth:`DirListing.sizes_of`)."""


def _unlisted(count: int) -> pa.Array:
    """``count`` times :data:`UNLISTED_SIZE` (from a buffer: ``pa.array`` of a NumPy array would
    import pandas, a quarter of a second and 30 MB, to ask whether it is a Series)."""
    values = array("q", [UNLISTED_SIZE]) * count
    return pa.Array.from_buffers(pa.int64(), count, [None, pa.py_buffer(values)])


def _joined_columns(listings: list[DirListing]) -> tuple[list[str], list[pa.Array], list[int]] | None:
    """Each listing's names as one NUL-separated text, sizes as Arrow and entry count, when
    every listing holds them so (:class:`Names`, :class:`OptionalInts`) and no folder: the
    columns are then made without a Python object per entry. None otherwise."""
    texts: list[str] = []
    sizes: list[pa.Array] = []
    counts: list[int] = []
    for listing in listings:
        names, listed_sizes = listing.names, listing.sizes
        joined = names.joined() if isinstance(names, Names) else None
        if joined is None or True in listing.is_dir:
            return None
        if not listing.sizes_listed:
            column = _unlisted(len(names))
        elif isinstance(listed_sizes, OptionalInts):
            column = listed_sizes.as_arrow()
        else:
            return None
        if len(names):
            texts.append(joined)
            sizes.append(column)
        counts.append(len(names))
    return texts, sizes, counts


def listed_frame(listings: Mapping[str, Iterable[FileInfo]], partitions: tuple[str, ...]) -> pl.DataFrame:
    """``part``, ``name``, ``size`` of every file (not folder) the partitions' listings hold
    (``size`` :data:`UNLISTED_SIZE` where a names-only listing has not asked for it)."""
    dir_listings = [dir_listing(listings, partition) for partition in partitions]
    joined = _joined_columns(dir_listings)
    if joined is not None:
        texts, size_arrays, counts = joined
        names = (
            pl.Series([SEPARATOR.join(texts)], dtype=pl.String).str.split(SEPARATOR).explode()
            if texts
            else pl.Series([], dtype=pl.String)
        )
        sizes = pl.Series(pa.concat_arrays(size_arrays) if size_arrays else pa.array([], pa.int64()))
    else:
        listed_names: list[str] = []
        listed_sizes: list[int | None] = []
        counts = []
        for listing in dir_listings:
            entry_names, entry_sizes = _entries(listing)
            listed_names += entry_names
            listed_sizes += entry_sizes
            counts.append(len(entry_names))
        names = pl.Series(listed_names, dtype=pl.String)
        sizes = pl.Series(listed_sizes, dtype=pl.Int64)
    parts = np.repeat(np.arange(len(partitions), dtype=np.uint32), counts)
    return pl.DataFrame({"part": parts, "name": names, "size": sizes.fill_null(0)})


# -- names ------------------------------------------------------------------------------------


def _plain_bases(candidates: pl.DataFrame) -> pl.DataFrame:
    groups = pl.col("name").str.extract_groups(_BASE)
    return candidates.with_columns(
        groups.struct.field("1").alias("file_id"), groups.struct.field("2").alias("instant")
    )


def _plain_logs(candidates: pl.DataFrame) -> pl.DataFrame:
    groups = pl.col("name").str.extract_groups(_LOG)
    return candidates.with_columns(
        groups.struct.field("1").alias("file_id"),
        groups.struct.field("2").alias("instant"),
        groups.struct.field("3").cast(pl.Int64).alias("log_version"),
        groups.struct.field("4").alias("write_token"),
    )


def _parsed_one_by_one(leftovers: pl.DataFrame, partitions: tuple[str, ...]) -> pl.DataFrame:
    """The names the plain patterns did not match, parsed by the object view's parser."""
    rows: dict[str, list[object]] = {column: [] for column in FILE_COLUMNS}
    for part, name, size in leftovers.select("part", "name", "size").iter_rows():
        parsed = parse_data_file_name(partitions[part], name, size)
        if parsed is None:
            continue
        is_log = isinstance(parsed, LogFile)
        values = (part, name, size, is_log, parsed.file_id, parsed.instant_time)
        for column, value in zip(
            ("part", "name", "size", "is_log", "file_id", "instant"), values, strict=True
        ):
            rows[column].append(value)
        rows["log_version"].append(parsed.log_version if isinstance(parsed, LogFile) else None)
        rows["write_token"].append(parsed.write_token if isinstance(parsed, LogFile) else None)
    return pl.DataFrame(rows, schema=FILE_COLUMNS)


def parse_names(listed: pl.DataFrame, partitions: tuple[str, ...]) -> pl.DataFrame:
    """The data files among ``listed`` (:func:`listed_frame`), in :data:`FILE_COLUMNS`; the
    same files, ids, instants, versions and tokens as :func:`.datafiles.parse_data_files`."""
    name = pl.col("name")
    dotted = name.str.starts_with(".")
    base_candidates = listed.filter(~dotted)
    log_candidates = listed.filter(
        dotted
        & ~name.str.starts_with("._")
        & ~name.str.starts_with(PARTITION_METADATA_PREFIX)
        & ~name.str.ends_with(".crc")
    )
    bases = _plain_bases(base_candidates)
    logs = _plain_logs(log_candidates)
    typed_bases = bases.filter(pl.col("file_id").is_not_null()).select(
        "part", "name", "size", pl.lit(False).alias("is_log"), "file_id", "instant",
        pl.lit(None, dtype=pl.Int64).alias("log_version"), pl.lit(None, dtype=pl.String).alias("write_token"),
    )  # fmt: skip
    typed_logs = logs.filter(pl.col("file_id").is_not_null()).select(
        "part",
        "name",
        "size",
        pl.lit(True).alias("is_log"),
        "file_id",
        "instant",
        "log_version",
        "write_token",
    )
    leftovers = pl.concat(
        [
            bases.filter(pl.col("file_id").is_null()).select("part", "name", "size"),
            logs.filter(pl.col("file_id").is_null()).select("part", "name", "size"),
        ]
    )
    frames = [typed_bases, typed_logs]
    if leftovers.height:
        frames.append(_parsed_one_by_one(leftovers, partitions))
    return pl.concat([frame.cast(FILE_COLUMNS) for frame in frames])  # type: ignore[arg-type]


# -- visibility and slices ----------------------------------------------------------------------


@dataclass(frozen=True)
class _TimelineFacts:
    """What the view reads of the timeline, as frames and sets."""

    timeline: Timeline
    completions: Mapping[str, str]
    first: str | None
    pending_times: frozenset[str]
    logs_name_their_slice: bool

    @classmethod
    def of(cls, timeline: Timeline, inputs: ViewInputs) -> _TimelineFacts:
        pending = {op.instant_time for op in inputs.pending_compaction.values()}
        pending |= {i.timestamp for i in timeline.pending_compactions()}
        return cls(
            timeline,
            timeline.completion_times(),
            timeline.write_timeline_start(),
            frozenset(pending),
            timeline.layout.logs_name_their_slice,
        )


def _visible(files: pl.DataFrame, facts: _TimelineFacts) -> pl.Series:
    instant = pl.col("instant")
    visible = instant.is_in(pl.Series(list(facts.completions), dtype=pl.String).implode())
    if facts.first is not None:
        visible = visible | (instant < facts.first)
    if facts.logs_name_their_slice and facts.pending_times:
        visible = visible | (
            pl.col("is_log")
            & instant.is_in(pl.Series(sorted(facts.pending_times), dtype=pl.String).implode())
        )
    return files.select(visible.alias("visible")).to_series()


def _pending_slices(files: pl.DataFrame, partitions: tuple[str, ...], inputs: ViewInputs) -> pl.DataFrame:
    """(part, file_id, slice) of the pending compactions of the batch's file groups."""
    index = {partition: i for i, partition in enumerate(partitions)}
    rows = [
        (index[partition], file_id, op.instant_time)
        for (partition, file_id), op in inputs.pending_compaction.items()
        if partition in index
    ]
    pending = pl.DataFrame(
        rows, schema={"part": pl.UInt32, "file_id": pl.String, "slice": pl.String}, orient="row"
    )
    groups = files.select("part", "file_id").unique()
    return pending.join(groups, on=["part", "file_id"], how="semi")


def _log_completions(logs: pl.DataFrame, facts: _TimelineFacts) -> pl.DataFrame:
    """``instant`` -> ``completion`` of the logs' distinct instants (None: not known)."""
    instants = logs.get_column("instant").unique().to_list()
    completions = facts.completions
    archived = facts.timeline.archived_completion_time
    known = [completions.get(t) or archived(t) for t in instants]
    return pl.DataFrame(
        {"instant": instants, "completion": known}, schema={"instant": pl.String, "completion": pl.String}
    )


def _digits_of_one_length(*columns: pl.Series) -> bool:
    """Whether every value is ASCII digits, all of one length: then their order as integers is
    their order as strings (the object view's)."""
    values = pl.concat([column.drop_nulls() for column in columns])
    if not values.len():
        return True
    lengths = values.str.len_bytes()
    return bool(lengths.min() == lengths.max() and values.str.contains(r"^[0-9]+$").all())


def _layout2_log_slices(logs: pl.DataFrame, base_slices: pl.DataFrame, facts: _TimelineFacts) -> pl.DataFrame:
    """The logs with their ``slice``: the greatest base slice at or before the completion time
    of their deltacommit (null: none, or the completion time is not known)."""
    timed = logs.join(_log_completions(logs, facts), on="instant", how="left")
    if _digits_of_one_length(timed.get_column("completion"), base_slices.get_column("slice")):
        key = pl.col("completion").cast(pl.Int64).alias("at")
        slice_key = pl.col("slice").cast(pl.Int64).alias("at")
        return (
            timed.with_columns(key)
            .sort("at")
            .join_asof(
                base_slices.with_columns(slice_key).sort("at"),
                on="at",
                by=["part", "file_id"],
                strategy="backward",
                check_sortedness=False,
            )
            .drop("at", "completion")
        )
    keys = timed.select("part", "file_id", "instant", "completion").unique()
    placed = (
        keys.join(base_slices, on=["part", "file_id"], how="inner")
        .filter(pl.col("slice") <= pl.col("completion"))
        .group_by("part", "file_id", "instant")
        .agg(pl.col("slice").max())
    )
    return timed.drop("completion").join(placed, on=["part", "file_id", "instant"], how="left")


def _sequential_slices(
    files: pl.DataFrame,
    base_slices: pl.DataFrame,
    groups: pl.DataFrame,
    partitions: tuple[str, ...],
    facts: _TimelineFacts,
) -> pl.DataFrame:
    """(name, part, file_id, slice) of the logs of ``groups``, by the object view's own rule."""
    group_logs = files.filter(pl.col("is_log")).join(groups, on=["part", "file_id"], how="semi")
    instants: dict[tuple[int, str], list[str]] = {}
    for part, file_id, instant in base_slices.join(groups, on=["part", "file_id"], how="semi").iter_rows():
        instants.setdefault((part, file_id), []).append(instant)
    logs: dict[tuple[int, str], list[LogFile]] = {}
    for part, name, size, file_id, instant, version, token in group_logs.select(
        "part", "name", "size", "file_id", "instant", "log_version", "write_token"
    ).iter_rows():
        log = LogFile(partitions[part], name, size, file_id, instant, version, token)
        logs.setdefault((part, file_id), []).append(log)
    rows: list[tuple[str, int, str, str]] = []
    layout = facts.timeline.layout
    for key, group in logs.items():
        slice_instants = sorted(set(instants.get(key, ())))
        by_slice = fsview.logs_by_slice(
            group, slice_instants, layout, facts.completions, facts.timeline.archived_completion_time
        )
        rows += [(log.name, *key, slice_key) for slice_key, placed in by_slice.items() for log in placed]
    schema = {"name": pl.String, "part": pl.UInt32, "file_id": pl.String, "slice": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _assign_slices(
    visible: pl.DataFrame, partitions: tuple[str, ...], inputs: ViewInputs, facts: _TimelineFacts
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The visible files with their ``slice`` (:data:`PLACED_COLUMNS`), and every slice."""
    bases = visible.filter(~pl.col("is_log"))
    pending = _pending_slices(visible, partitions, inputs)
    base_slices = pl.concat(
        [bases.select("part", "file_id", pl.col("instant").alias("slice")), pending]
    ).unique()
    logs = visible.filter(pl.col("is_log"))
    placed_bases = bases.with_columns(pl.col("instant").alias("slice"))
    if facts.logs_name_their_slice or not logs.height:
        placed_logs = logs.with_columns(pl.col("instant").alias("slice"))
        slices = pl.concat([base_slices, placed_logs.select("part", "file_id", "slice")]).unique()
        return pl.concat([placed_bases, placed_logs]), slices
    by_join = _layout2_log_slices(logs, base_slices, facts)
    unplaced = by_join.filter(pl.col("slice").is_null()).select("part", "file_id").unique()
    if not unplaced.height:  # every slice is a base or pending compaction's
        return pl.concat([placed_bases, by_join.select(PLACED_COLUMNS)]), base_slices
    sequential = _sequential_slices(visible, base_slices, unplaced, partitions, facts)
    placed_logs = pl.concat(
        [
            by_join.join(unplaced, on=["part", "file_id"], how="anti").select(PLACED_COLUMNS),
            logs.join(sequential, on=["part", "file_id", "name"]).select(PLACED_COLUMNS),
        ]
    )
    slices = pl.concat([base_slices, sequential.select("part", "file_id", "slice")]).unique()
    return pl.concat([placed_bases, placed_logs]), slices


def build_batch(
    timeline: Timeline,
    listings: Mapping[str, Iterable[FileInfo]],
    partitions: tuple[str, ...],
    inputs: ViewInputs,
    facts: _TimelineFacts | None = None,
) -> ColumnarBatch:
    """The view of ``partitions`` (each listed in ``listings``)."""
    facts = facts or _TimelineFacts.of(timeline, inputs)
    parsed = parse_names(listed_frame(listings, partitions), partitions)
    visible = _visible(parsed, facts)
    uncommitted = parsed.filter(~visible).group_by("part").len()
    files, slices = _assign_slices(parsed.filter(visible), partitions, inputs, facts)
    counts = dict(
        zip(uncommitted.get_column("part").to_list(), uncommitted.get_column("len").to_list(), strict=True)
    )
    return ColumnarBatch(partitions, files, slices, counts)


def _batches(
    listings: Mapping[str, Iterable[FileInfo]], partitions: list[str], limit: int
) -> Iterator[tuple[str, ...]]:
    batch: list[str] = []
    entries = 0
    for partition in partitions:
        batch.append(partition)
        entries += len(dir_listing(listings, partition))
        if entries >= limit:
            yield tuple(batch)
            batch, entries = [], 0
    if batch:
        yield tuple(batch)


def view_batches(
    timeline: Timeline,
    listings: Mapping[str, Iterable[FileInfo]],
    inputs: ViewInputs,
    batch_files: int = BATCH_FILES,
) -> Iterator[ColumnarBatch]:
    """The view of every listed partition, a batch of partitions at a time, in partition order."""
    facts = _TimelineFacts.of(timeline, inputs)
    for batch in _batches(listings, sorted(listings), batch_files):
        yield build_batch(timeline, listings, batch, inputs, facts)
