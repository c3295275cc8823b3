"""The row order of a clustering group's output: Hudi's ``hoodie.layout.optimize.strategy``
over the plan's sort columns (``hoodie.clustering.plan.strategy.sort.columns``).

* ``linear``: ascending by the sort columns, nulls first (Spark's default ascending order);
* ``z-order`` and ``hilbert``: ascending by a space-filling-curve key over the sort columns.
  Each column's values are mapped to an order-preserving unsigned rank: the dense rank of the
  value within the group (equal values share a rank, nulls rank lowest), stretched to the same
  number of bits ``B`` for every column (``(rank - 1) * (2**B - 1) // (distinct - 1)``, strictly
  increasing), so that every column takes an equal part in the key. ``B`` is the bit length of
  the largest number of distinct values of a column (at most 32). Z-order interleaves the bits
  of the columns, most significant first (column order as listed); Hilbert takes Skilling's
  transform of the coordinates to the Hilbert curve's transposed index ("Programming the
  Hilbert curve", 2004), then interleaves it the same way. Hudi maps values to bytes instead
  (RFC-28); readers only need valid files, and rows close on the curve stay close in a file.
  With one sort column both curves are the linear order.

Without sort columns the rows keep plan order. Sorts are stable: ties keep plan order.
The group's rows are then split into files of about equal row counts (:func:`split_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from maintainer.errors import ApplyError

SORT_COLUMNS_PARAM = "hoodie.clustering.plan.strategy.sort.columns"
LAYOUT_PARAM = "hoodie.layout.optimize.strategy"
MAX_BITS = 32
"""Bits per column in a curve key (a rank above 2**32 keeps its highest 32 bits)."""
WORD_BITS = 64

UInt64s = np.ndarray  # a one-dimensional uint64 array (one value per row)


class Layout(str, Enum):
    LINEAR = "linear"
    ZORDER = "z-order"
    HILBERT = "hilbert"

    @classmethod
    def parse(cls, text: str) -> Layout:
        """Hudi's names, any case: ``LINEAR``, ``ZORDER`` (or ``z-order``), ``HILBERT``."""
        normal = text.strip().lower().replace("_", "-")
        aliases = {"linear": cls.LINEAR, "zorder": cls.ZORDER, "z-order": cls.ZORDER, "hilbert": cls.HILBERT}
        if normal not in aliases:
            raise ApplyError(
                f"unknown layout optimization strategy {text!r} ({LAYOUT_PARAM})",
                hint="use linear, z-order or hilbert",
            )
        return aliases[normal]


def sort_columns_of(params: dict[str, str] | None) -> tuple[str, ...]:
    """The plan's sort columns (comma-separated in its strategy parameters)."""
    text = (params or {}).get(SORT_COLUMNS_PARAM) or ""
    return tuple(c.strip() for c in text.split(",") if c.strip())


def layout_of(params: dict[str, str] | None, given: str | None = None) -> Layout:
    """``given`` if set, else the plan's ``hoodie.layout.optimize.strategy``, else linear."""
    text = given if given is not None else (params or {}).get(LAYOUT_PARAM)
    return Layout.parse(text) if text else Layout.LINEAR


def ordered(table: pa.Table, columns: Sequence[str], layout: Layout) -> pa.Table:
    """``table``'s rows in the layout's order over ``columns`` (none: unchanged)."""
    if not columns or table.num_rows < 2:
        return table
    try:
        if layout is Layout.LINEAR or len(columns) == 1:
            indices = _linear_indices(table, columns)
        else:
            words = curve_key(table, columns, layout)
            names = [f"w{i}" for i in range(len(words))]
            key_table = pa.table(dict(zip(names, words, strict=True)))
            indices = pc.sort_indices(key_table, sort_keys=[(n, "ascending") for n in names])
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid) as exc:
        raise ApplyError(
            f"cannot order rows by the sort columns {', '.join(columns)}: {exc}",
            hint="sort columns must be of a comparable type (numbers, strings, dates, times)",
        ) from exc
    return table.take(indices)


def _linear_indices(table: pa.Table, columns: Sequence[str]) -> pa.Array:
    """Ascending by ``columns``, nulls first: each column sorts after its validity (a null is
    not valid: False first), so no null placement option is needed."""
    keys: dict[str, pa.ChunkedArray] = {}
    for index, name in enumerate(columns):
        column = table.column(name)
        keys[f"v{index}"] = pc.is_valid(column)
        keys[f"c{index}"] = column
    return pc.sort_indices(pa.table(keys), sort_keys=[(k, "ascending") for k in keys])


def curve_key(table: pa.Table, columns: Sequence[str], layout: Layout) -> list[UInt64s]:
    """The z-order or Hilbert key of each row, as uint64 words (most significant first)."""
    ranks = [_dense_rank(table.column(c)) for c in columns]
    bits = max(1, min(MAX_BITS, max(int(r.max()).bit_length() for r in ranks)))
    coordinates = [stretched(r, bits) for r in ranks]
    if layout is Layout.HILBERT:
        coordinates = hilbert_transpose(coordinates, bits)
    return interleave(coordinates, bits)


def _dense_rank(column: pa.ChunkedArray) -> UInt64s:
    """1-based dense ranks, nulls lowest (ranked last by Arrow, then moved in front)."""
    ranks = np.asarray(
        pc.rank(column, sort_keys="ascending", tiebreaker="dense").to_numpy(zero_copy_only=False),
        dtype=np.uint64,
    )
    if column.null_count == 0:
        return ranks
    nulls = np.asarray(pc.is_null(column).to_numpy(zero_copy_only=False), dtype=bool)
    return np.where(nulls, np.uint64(1), ranks + np.uint64(1))


def stretched(ranks: UInt64s, bits: int) -> UInt64s:
    """1-based dense ranks mapped onto ``[0, 2**bits - 1]``, strictly increasing."""
    top = int(ranks.max()) if len(ranks) else 1
    shift = max(0, top.bit_length() - bits)
    zero_based = (ranks - np.uint64(1)) >> np.uint64(shift)
    span = (top - 1) >> shift
    if span == 0:
        return np.zeros(len(ranks), dtype=np.uint64)
    full = (1 << bits) - 1
    return (zero_based * np.uint64(full)) // np.uint64(span)


def interleave(coordinates: Sequence[UInt64s], bits: int) -> list[UInt64s]:
    """The bits of the coordinates interleaved, from the most significant level down (at each
    level the first coordinate first), packed into 64-bit words."""
    total = bits * len(coordinates)
    words = [
        np.zeros(len(coordinates[0]), dtype=np.uint64) for _ in range((total + WORD_BITS - 1) // WORD_BITS)
    ]
    position = 0
    for level in range(bits - 1, -1, -1):
        for coordinate in coordinates:
            bit = (coordinate >> np.uint64(level)) & np.uint64(1)
            word, offset = divmod(position, WORD_BITS)
            words[word] |= bit << np.uint64(WORD_BITS - 1 - offset)
            position += 1
    return words


def hilbert_transpose(coordinates: Sequence[UInt64s], bits: int) -> list[UInt64s]:
    """Skilling's ``AxestoTranspose``: the coordinates (``bits`` bits each) to the transposed
    Hilbert index, whose interleaved bits are the index along the curve."""
    x = [np.array(c, dtype=np.uint64) for c in coordinates]
    n = len(x)
    q = 1 << (bits - 1)
    while q > 1:
        p = np.uint64(q - 1)
        for i in range(n):
            high = (x[i] & np.uint64(q)) != 0
            if i == 0:
                x[0] = np.where(high, x[0] ^ p, x[0])
                continue
            swap = (x[0] ^ x[i]) & p
            x[0], x[i] = np.where(high, x[0] ^ p, x[0] ^ swap), np.where(high, x[i], x[i] ^ swap)
        q >>= 1
    for i in range(1, n):
        x[i] = x[i] ^ x[i - 1]
    flips = np.zeros(len(x[0]), dtype=np.uint64)
    q = 1 << (bits - 1)
    while q > 1:
        flips = np.where((x[n - 1] & np.uint64(q)) != 0, flips ^ np.uint64(q - 1), flips)
        q >>= 1
    return [xi ^ flips for xi in x]


def split_counts(rows: int, files: int) -> list[int]:
    """Rows per output file: ``files`` files of about equal rows (differing by at most one),
    without empty files (fewer rows than files: one row each)."""
    files = max(1, files)
    base, extra = divmod(rows, files)
    counts = [base + (1 if index < extra else 0) for index in range(files)]
    return [count for count in counts if count]
