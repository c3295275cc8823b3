"""The independent oracle: ``hudi`` (hudi-rs) reads of a table, normalised for comparison.

A fresh ``HudiTable`` is built for every read (it loads the timeline once). Rust panics
surface as ``BaseException`` subclasses; they are turned into AssertionError with context.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa

READ_OPTIMIZED = "hoodie.read.use.read_optimized.mode"


def _read(path: Path | str, as_of: str | None, read_optimized: bool) -> pa.Table:
    import hudi

    try:
        table = hudi.HudiTable(str(path))
        options = hudi.HudiReadOptions()
        if as_of is not None:
            options = options.with_as_of_timestamp(as_of)
        if read_optimized:
            options = options.with_hudi_option(READ_OPTIMIZED, "true")
        batches = table.read(options)
    except BaseException as exc:  # hudi-rs panics are BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AssertionError(f"hudi could not read {path} (as_of={as_of}): {exc!r}") from None
    if not batches:
        return pa.table({})
    return pa.Table.from_batches(batches)


def snapshot_table(path: Path | str) -> pa.Table:
    """The latest snapshot hudi reads, as an Arrow table (its column types as hudi gives them)."""
    return _read(path, None, False)


def rows(table: pa.Table, drop: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Rows as dicts without the dropped columns, in a canonical order."""
    dropped = set(drop)
    keep = [c for c in table.column_names if c not in dropped]
    result = table.select(keep).to_pylist() if keep else []
    return sorted(result, key=lambda r: repr(sorted(r.items(), key=lambda kv: kv[0])))


def rows_of(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plain rows (e.g. from an expected-rows file) in the canonical order of :func:`rows`."""
    return sorted(records, key=lambda r: repr(sorted(r.items(), key=lambda kv: kv[0])))


def snapshot_rows(
    path: Path | str,
    as_of: str | None = None,
    read_optimized: bool = False,
    drop: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """The rows hudi reads: latest snapshot, time travel (``as_of``) or read-optimized."""
    return rows(_read(path, as_of, read_optimized), drop)


def completed_commit_times(path: Path | str) -> list[str]:
    """Completed commit, deltacommit and replacecommit times, as hudi lists them."""
    import hudi

    timeline = hudi.HudiTable(str(path)).get_timeline()
    instants = (
        timeline.get_completed_commits()
        + timeline.get_completed_deltacommits()
        + timeline.get_completed_replacecommits()
    )
    return sorted(i.timestamp for i in instants)


FileSliceRow = tuple[str, str, str, str, tuple[str, ...]]


def file_slices(path: Path | str, as_of: str | None = None) -> list[FileSliceRow]:
    """hudi's latest file slices (or as of an instant): partition, file id, base instant, base
    file, log files; sorted. With a metadata table (v8+), hudi lists files through it."""
    import hudi

    options = hudi.HudiReadOptions()
    if as_of is not None:
        options = options.with_as_of_timestamp(as_of)
    try:
        found = hudi.HudiTable(str(path)).get_file_slices(options)
    except BaseException as exc:  # hudi-rs panics are BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AssertionError(f"hudi could not list the file slices of {path}: {exc!r}") from None
    return sorted(
        (s.partition_path, s.file_id, s.creation_instant_time, s.base_file_name, tuple(s.log_file_names))
        for s in found
    )
