"""One column's statistics over one file or one partition (Hudi's ``HoodieColumnRangeMetadata``),
and their merge (``HoodieColumnRangeMetadata.merge``: min of the mins, max of the maxes, sums of
the counts and sizes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import reduce

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.updates.values import ValueMeta, Wrapped, java_max, java_min


@dataclass(frozen=True, slots=True)
class ColumnRange:
    """``file`` is a file name, or a partition path for partition stats."""

    file: str
    column: str
    min: Wrapped | None
    max: Wrapped | None
    null_count: int
    value_count: int
    total_size: int
    total_uncompressed_size: int
    meta: ValueMeta


def merge(left: ColumnRange, right: ColumnRange) -> ColumnRange:
    """The two ranges as one (file and meta of ``left``); value types must agree."""
    if left.meta.type is not right.meta.type:
        raise UnsupportedTableError(
            f"column {left.column!r} has values of type {left.meta.type.name} and "
            f"{right.meta.type.name} (Hudi refuses to merge them)"
        )
    return replace(
        left,
        min=java_min(left.min, right.min, left.meta),
        max=java_max(left.max, right.max, left.meta),
        null_count=left.null_count + right.null_count,
        value_count=left.value_count + right.value_count,
        total_size=left.total_size + right.total_size,
        total_uncompressed_size=left.total_uncompressed_size + right.total_uncompressed_size,
    )


def merge_all(ranges: Iterable[ColumnRange]) -> ColumnRange:
    """The ranges merged left to right (at least one)."""
    return reduce(merge, ranges)


def by_column(ranges: Iterable[ColumnRange]) -> dict[str, list[ColumnRange]]:
    """The ranges grouped by column, first appearance first."""
    groups: dict[str, list[ColumnRange]] = {}
    for column_range in ranges:
        groups.setdefault(column_range.column, []).append(column_range)
    return groups
