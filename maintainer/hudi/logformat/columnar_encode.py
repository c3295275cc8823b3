"""Vectorised Avro binary encoding of flat records straight from Arrow columns.

For record schemas whose fields are all primitives (``null``-unions of long, int, double,
float, boolean, string), the datums of a whole data block are built with numpy in a few passes
instead of one fastavro call per record. The bytes are the same as fastavro's (and Java's):
a union branch index as a zigzag varint, then the value (zigzag varints for int/long, IEEE
little-endian for float/double, one byte for boolean, varint length + UTF-8 for string).
Anything else returns None so the caller falls back to the per-record encoder.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa

from maintainer.hudi.logformat.binary import pack_int

_FIXED_WIDTH = {"double": ("<f8", 8), "float": ("<f4", 4)}
_SUPPORTED = {"long", "int", "double", "float", "boolean", "string"}


def _field_plan(schema_json: str) -> list[tuple[str, str, int | None]] | None:
    """[(name, primitive type, index of the non-null branch or None when not a union)]."""
    schema = json.loads(schema_json)
    if not isinstance(schema, dict) or schema.get("type") != "record":
        return None
    plan = []
    for field in schema.get("fields", []):
        kind: Any = field["type"]
        branch = None
        if isinstance(kind, list):
            non_null = [k for k in kind if k != "null"]
            if len(kind) != 2 or len(non_null) != 1:
                return None
            branch, kind = kind.index(non_null[0]), non_null[0]
        if not isinstance(kind, str) or kind not in _SUPPORTED:
            return None
        plan.append((field["name"], kind, branch))
    return plan


def _zigzag(values: np.ndarray) -> np.ndarray:
    signed = values.astype(np.int64)
    return ((signed << 1) ^ (signed >> 63)).astype(np.uint64)


def _varint_pieces(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Varint bytes of unsigned values: (lengths per value, a (n, 10) byte matrix)."""
    count = len(values)
    matrix = np.zeros((count, 10), dtype=np.uint8)
    lengths = np.ones(count, dtype=np.int64)
    remaining = values.copy()
    for position in range(10):
        low = (remaining & np.uint64(0x7F)).astype(np.uint8)
        remaining >>= np.uint64(7)
        more = remaining != 0
        matrix[:, position] = low | (more.astype(np.uint8) << 7)
        lengths += more
        if not more.any():
            break
    return lengths, matrix


class _Segments:
    """Per-row byte segments of one field, to be laid out row by row."""

    def __init__(self, count: int) -> None:
        self.lengths = np.zeros(count, dtype=np.int64)
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, lengths: np.ndarray, data: np.ndarray, starts: np.ndarray) -> None:
        """``data[starts[i] : starts[i] + lengths[i]]`` is row i's next piece."""
        self.parts.append((lengths, data, starts))
        self.lengths += lengths


def _fixed_matrix(matrix: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    width = matrix.shape[1]
    return lengths, matrix.reshape(-1), np.arange(len(lengths), dtype=np.int64) * width


def _column_pieces(column: pa.Array, kind: str, branch: int | None, segments: _Segments) -> None:
    count = len(column)
    valid = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if branch is not None:
        branch_byte = np.where(valid, (branch * 2), ((1 - branch) * 2)).astype(np.uint8).reshape(-1, 1)
        segments.add(*_fixed_matrix(branch_byte, np.ones(count, dtype=np.int64)))
    elif not valid.all():
        raise ValueError("null in a non-nullable field")
    if kind == "string":
        _string_pieces(column, valid, segments)
        return
    if kind == "boolean":
        values = np.asarray(column.fill_null(False).to_numpy(zero_copy_only=False), dtype=np.uint8).reshape(
            -1, 1
        )
        segments.add(*_fixed_matrix(values, valid.astype(np.int64)))
        return
    if kind in _FIXED_WIDTH:
        dtype, width = _FIXED_WIDTH[kind]
        values = np.asarray(column.fill_null(0).to_numpy(zero_copy_only=False)).astype(dtype)
        segments.add(*_fixed_matrix(values.view(np.uint8).reshape(count, width), valid * width))
        return
    values = np.asarray(column.fill_null(0).to_numpy(zero_copy_only=False))
    lengths, matrix = _varint_pieces(_zigzag(values))
    segments.add(*_fixed_matrix(matrix, np.where(valid, lengths, 0)))


def _string_pieces(column: pa.Array, valid: np.ndarray, segments: _Segments) -> None:
    column = column.cast(pa.large_string()).fill_null("")
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int64)[
        column.offset : column.offset + len(column) + 1
    ]
    data = np.frombuffer(column.buffers()[2] or b"", dtype=np.uint8)
    sizes = np.diff(offsets)
    lengths, matrix = _varint_pieces(_zigzag(sizes))
    segments.add(*_fixed_matrix(matrix, np.where(valid, lengths, 0)))
    segments.add(np.where(valid, sizes, 0), data, offsets[:-1])


def _layout(segments: _Segments) -> bytes:
    """Rows of ``int length`` + datum, each datum the concatenation of its pieces."""
    count = len(segments.lengths)
    if count == 0:
        return b""
    row_sizes = segments.lengths + 4
    row_starts = np.concatenate([[0], np.cumsum(row_sizes)[:-1]]).astype(np.int64)
    out = np.zeros(int(row_sizes.sum()), dtype=np.uint8)
    prefix = segments.lengths.astype(">i4").view(np.uint8).reshape(count, 4)
    out[(row_starts[:, None] + np.arange(4)).reshape(-1)] = prefix.reshape(-1)
    cursor = row_starts + 4
    for lengths, data, starts in segments.parts:
        total = int(lengths.sum())
        if total:
            # row i's bytes are data[starts[i] : starts[i] + lengths[i]], going to cursor[i]
            shift = np.repeat(cursor - starts, lengths)
            source = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)
            out[source + shift] = data[source]
        cursor = cursor + lengths
    return out.tobytes()


def encode_table_content(table: pa.Table, schema_json: str, version: int) -> bytes | None:
    """The content of an Avro data block holding ``table``'s rows, or None when the schema is
    not flat primitives (use the per-record encoder then)."""
    plan = _field_plan(schema_json)
    if plan is None or any(name not in table.column_names for name, _, _ in plan):
        return None
    segments = _Segments(table.num_rows)
    try:
        for name, kind, branch in plan:
            _column_pieces(table.column(name).combine_chunks(), kind, branch, segments)
    except (ValueError, TypeError, pa.ArrowException):
        return None
    return pack_int(version) + pack_int(table.num_rows) + _layout(segments)
