"""Column stats already in the metadata table, read back as :class:`ColumnRange` (Hudi's
``HoodieColumnRangeMetadata.fromColumnStats``), for the partition stats of a write.

A stored min/max value is accepted in either shape: with its wrapper name (fastavro's union
notation, as :func:`maintainer.hudi.metadata.records.decode_value` returns it) or as the plain
``{"value": ...}`` an untyped reader gives. A plain V2 value takes the wrapper of its record's
``valueType``; a plain V1 value is only ambiguous for numbers (an ``int`` may be an int, long,
date or timestamp wrapper, a ``float`` a float or double one): it then takes the wrapper
``hint`` names (the one the same column has in the files written now), else it is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import (
    V1_DECIMAL_SCALE,
    WRAPPER_NAMESPACE,
    ValueMeta,
    Wrapped,
    java_bytes,
)

STATS_FIELD = "ColumnStatsMetadata"


def stored_range(record: MetadataRecord, hint: str | None = None) -> ColumnRange | None:
    """The range a column stats record holds, or None for a deleted (or stats-less) record."""
    stats = record.get(STATS_FIELD)
    if not stats or stats.get("isDeleted"):
        return None
    meta = ValueMeta.from_type_info(stats.get("valueType"))
    return ColumnRange(
        file=stats["fileName"],
        column=stats["columnName"],
        min=_unwrap(stats.get("minValue"), meta, hint),
        max=_unwrap(stats.get("maxValue"), meta, hint),
        null_count=int(stats["nullCount"]),
        value_count=int(stats["valueCount"]),
        total_size=int(stats["totalSize"]),
        total_uncompressed_size=int(stats["totalUncompressedSize"]),
        meta=meta,
    )


def _unwrap(value: Any, meta: ValueMeta, hint: str | None) -> Wrapped | None:
    if value is None:
        return None
    if isinstance(value, tuple):
        name, content = value
        return _normalized(str(name).removeprefix(WRAPPER_NAMESPACE), content["value"])
    inner = value["value"] if isinstance(value, Mapping) else value
    wrapper = meta.wrapper if not meta.is_v1 else _v1_wrapper(inner, hint)
    if wrapper is None:
        return None
    return _normalized(wrapper, inner)


def _normalized(wrapper: str, inner: Any) -> Wrapped:
    """V1 decimals as the bytes Java writes (fastavro decodes them to ``Decimal``)."""
    if wrapper == "DecimalWrapper" and isinstance(inner, Decimal):
        return Wrapped(wrapper, java_bytes(int(inner.scaleb(V1_DECIMAL_SCALE))))
    return Wrapped(wrapper, inner)


def _v1_wrapper(inner: Any, hint: str | None) -> str:
    if isinstance(inner, bool):
        return "BooleanWrapper"
    if isinstance(inner, str):
        return "StringWrapper"
    if isinstance(inner, bytes):
        return "BytesWrapper"
    if isinstance(inner, Decimal):
        return "DecimalWrapper"
    if isinstance(inner, int) and hint in (
        "IntWrapper",
        "LongWrapper",
        "DateWrapper",
        "LocalDateWrapper",
        "TimestampMicrosWrapper",
    ):
        return hint
    if isinstance(inner, float) and hint in ("FloatWrapper", "DoubleWrapper"):
        return hint
    raise UnsupportedTableError(
        f"a stored V1 column stats value {inner!r} does not say which wrapper holds it",
        hint="read the column stats records with their wrapper names (records.decode_value)",
    )
