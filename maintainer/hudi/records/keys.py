"""The record-key range of a base file, as Hudi's Avro Parquet writer keeps it for the footer
(``hoodie_min_record_key`` / ``hoodie_max_record_key``): the least and greatest key in Java's
``String.compareTo`` order, which compares UTF-16 code units."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _java_order(key: str) -> bytes:
    """A sort key giving Java's ``String.compareTo`` order (UTF-16 code units)."""
    return key.encode("utf-16-be")


def key_range(keys: pa.ChunkedArray) -> tuple[str, str]:
    """Min and max record key as Hudi's Avro writer compares them (Java ``String`` order).

    Arrow compares code points, which is the same order unless a key has characters beyond
    U+FFFF (surrogate pairs in Java); only then are the keys compared one by one.
    """
    if any(_has_four_byte_characters(chunk) for chunk in keys.chunks):
        values = [str(k) for k in keys.to_pylist()]
        return min(values, key=_java_order), max(values, key=_java_order)
    bounds = pc.min_max(keys)
    return str(bounds["min"].as_py()), str(bounds["max"].as_py())


def _has_four_byte_characters(chunk: pa.Array) -> bool:
    """Does a ``string`` array hold a character beyond U+FFFF (a UTF-8 lead byte 0xF0-0xF4)?"""
    if not pa.types.is_string(chunk.type):
        return bool(pc.any(pc.match_substring_regex(chunk, _BEYOND_BMP)).as_py())
    offsets_buffer, data_buffer = chunk.buffers()[1], chunk.buffers()[2]
    if not len(chunk) or data_buffer is None:
        return False
    offsets = np.frombuffer(offsets_buffer, np.int32, len(chunk) + 1, 4 * chunk.offset)
    data = np.frombuffer(data_buffer, np.uint8)[offsets[0] : offsets[-1]]
    return bool((data >= 0xF0).any())


_BEYOND_BMP = "[\\x{10000}-\\x{10FFFF}]"


class KeyRange:
    """The least and greatest record key of the batches added so far (None before any)."""

    def __init__(self) -> None:
        self.low: str | None = None
        self.high: str | None = None

    def add(self, keys: pa.ChunkedArray) -> None:
        low, high = key_range(keys)
        if self.low is None or _java_order(low) < _java_order(self.low):
            self.low = low
        if self.high is None or _java_order(high) > _java_order(self.high):
            self.high = high
