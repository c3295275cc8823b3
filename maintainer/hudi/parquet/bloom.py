"""Hudi's record-key bloom filter, as stored in Parquet base-file footers.

Footer key ``org.apache.hudi.bloomfilter`` holds the Base64 text of the filter's Java
``DataOutput`` bytes; ``hoodie_bloom_filter_type_code`` says which filter it is
(``DYNAMIC_V0``, the default, or ``SIMPLE``; no type code means ``SIMPLE``).

Layout (all big-endian), one *header* = int ``-1`` (format version), int number of
hashes, byte hash type (0 Jenkins, 1 Murmur), int vector size in bits:

* ``SIMPLE``: header, then the bit vector, ``ceil(bits / 8)`` bytes, bit ``i`` in
  byte ``i // 8`` under mask ``1 << (i % 8)``.
* ``DYNAMIC_V0``: header, int keys-per-row threshold ``nr``, int keys in the active
  row, int number of rows, then every row as a ``SIMPLE`` filter.

A key sets the bits :mod:`.bloom_hash` gives for it. A dynamic filter fills a row with ``nr``
keys, then opens the next one while ``rows * nr < max_entries``; past that bound it spreads
keys over the rows round-robin (first to row 0, then row 0, 1, ... again), exactly as Hudi's
``InternalDynamicBloomFilter`` does, so the same keys in the same order give the same bytes.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from maintainer.errors import CorruptFileError, TableFormatError
from maintainer.hudi.parquet.bloom_hash import (
    JENKINS_HASH,
    MURMUR_HASH,
    key_positions,
    position_rounds,
    utf8_keys,
)

BLOOM_FILTER_KEY = "org.apache.hudi.bloomfilter"
LEGACY_BLOOM_FILTER_KEY = "com.uber.hoodie.bloomfilter"
TYPE_CODE_KEY = "hoodie_bloom_filter_type_code"

SIMPLE = "SIMPLE"
DYNAMIC_V0 = "DYNAMIC_V0"

_VERSION = -1
_HEADER = struct.Struct(">iibi")
_DYNAMIC_FIELDS = struct.Struct(">iii")
# keys hashed at once (bounds the work arrays: their bytes, words and one round's positions)
_HASH_BATCH = 65536


@dataclass(frozen=True, slots=True)
class BloomFilterConfig:
    """Hudi's writer settings: ``hoodie.index.bloom.num_entries``, ``hoodie.index.bloom.fpp``,
    ``hoodie.bloom.index.filter.dynamic.max.entries``, ``hoodie.bloom.index.filter.type``."""

    num_entries: int = 60000
    fpp: float = 0.000000001
    max_entries: int = 100000
    type_code: str = DYNAMIC_V0

    @property
    def vector_size(self) -> int:
        log2_squared = math.log(2) * math.log(2)
        return math.ceil(self.num_entries * (-math.log(self.fpp) / log2_squared))

    @property
    def num_hashes(self) -> int:
        return math.ceil(math.log(2) * self.vector_size / self.num_entries)


DEFAULT_CONFIG = BloomFilterConfig()


# --- the filter value, its serialised form ------------------------------------------------


@dataclass(frozen=True, slots=True)
class BloomFilter:
    """A Hudi bloom filter: ``rows`` are bit vectors in Java byte layout (one for ``SIMPLE``).

    ``row_threshold`` (``nr``) and ``active_row_keys`` (``currentNbRecord``) are only
    meaningful for ``DYNAMIC_V0``.
    """

    type_code: str
    num_hashes: int
    hash_type: int
    vector_size: int
    rows: tuple[bytes, ...]
    row_threshold: int = 0
    active_row_keys: int = 0

    def might_contain(self, key: str) -> bool:
        positions = key_positions(key.encode("utf-8"), self.num_hashes, self.vector_size, self.hash_type)
        return any(all(row[p >> 3] & (1 << (p & 7)) for p in positions) for row in self.rows)

    def to_bytes(self) -> bytes:
        header = _HEADER.pack(_VERSION, self.num_hashes, self.hash_type, self.vector_size)
        if self.type_code == SIMPLE:
            return header + self.rows[0]
        parts = [header, _DYNAMIC_FIELDS.pack(self.row_threshold, self.active_row_keys, len(self.rows))]
        for row in self.rows:
            parts += [header, row]
        return b"".join(parts)

    def serialize(self) -> str:
        """The footer text (Base64 of the Java bytes)."""
        return base64.b64encode(self.to_bytes()).decode("ascii")


def parse_bloom_filter(
    text: str | bytes, type_code: str | None = None, where: str | None = None
) -> BloomFilter:
    """Read a footer's filter; ``type_code`` is the footer's type code (absent means ``SIMPLE``)."""
    code = (type_code or SIMPLE).upper()
    if code not in (SIMPLE, DYNAMIC_V0):
        raise CorruptFileError(
            f"unknown bloom filter type code {type_code!r}",
            where=where,
            hint="Hudi writes SIMPLE or DYNAMIC_V0",
        )
    try:
        data = base64.b64decode(text, validate=True)
        return _parse_bytes(data, code)
    except (binascii.Error, struct.error, ValueError) as exc:
        raise CorruptFileError(f"cannot decode the {code} bloom filter: {exc}", where=where) from exc


def _parse_header(data: bytes, offset: int) -> tuple[int, int, int, int]:
    """(num_hashes, hash_type, vector_size, next offset) of a filter header."""
    (version,) = struct.unpack_from(">i", data, offset)
    if version > 0:  # the old unversioned layout: the first int is the hash count, Jenkins hashing
        (vector_size,) = struct.unpack_from(">i", data, offset + 4)
        return version, JENKINS_HASH, vector_size, offset + 8
    if version != _VERSION:
        raise ValueError(f"unsupported filter format version {version}")
    _, num_hashes, hash_type, vector_size = _HEADER.unpack_from(data, offset)
    if hash_type not in (JENKINS_HASH, MURMUR_HASH) or num_hashes <= 0 or vector_size <= 0:
        raise ValueError(f"bad filter header: {num_hashes} hashes, hash type {hash_type}, {vector_size} bits")
    return num_hashes, hash_type, vector_size, offset + _HEADER.size


def _parse_row(data: bytes, offset: int) -> tuple[tuple[int, int, int], bytes, int]:
    num_hashes, hash_type, vector_size, offset = _parse_header(data, offset)
    end = offset + (vector_size + 7) // 8
    if end > len(data):
        raise ValueError(f"bit vector of {vector_size} bits is truncated")
    return (num_hashes, hash_type, vector_size), data[offset:end], end


def _parse_bytes(data: bytes, code: str) -> BloomFilter:
    if code == SIMPLE:
        params, row, end = _parse_row(data, 0)
        _expect_end(data, end)
        return BloomFilter(SIMPLE, *params, rows=(row,))
    num_hashes, hash_type, vector_size, offset = _parse_header(data, 0)
    threshold, active, count = _DYNAMIC_FIELDS.unpack_from(data, offset)
    offset += _DYNAMIC_FIELDS.size
    rows = []
    for _ in range(count):
        params, row, offset = _parse_row(data, offset)
        if params != (num_hashes, hash_type, vector_size):
            raise ValueError(f"a row's header {params} differs from the filter's")
        rows.append(row)
    _expect_end(data, offset)
    return BloomFilter(DYNAMIC_V0, num_hashes, hash_type, vector_size, tuple(rows), threshold, active)


def _expect_end(data: bytes, offset: int) -> None:
    if offset != len(data):
        raise ValueError(f"{len(data) - offset} unexpected bytes after the filter")


# --- building -----------------------------------------------------------------------------


def _java_bytes(bits: np.ndarray | None, vector_size: int) -> bytes:
    """The Java byte layout of a bit vector (bit i -> byte i/8, mask 1 << i%8)."""
    if bits is None:
        return bytes((vector_size + 7) // 8)
    return np.packbits(bits, bitorder="little").tobytes()


class BloomFilterBuilder:
    """Adds record keys in write order, batch by batch; :meth:`build` gives the filter.

    Memory stays bounded: one numpy boolean array (the bit vector, one byte per bit) per row,
    and the work arrays of at most ``_HASH_BATCH`` keys.
    """

    def __init__(self, config: BloomFilterConfig = DEFAULT_CONFIG) -> None:
        if config.type_code not in (SIMPLE, DYNAMIC_V0):
            raise TableFormatError(f"unknown bloom filter type code {config.type_code!r}")
        if config.num_entries <= 0 or not 0 < config.fpp < 1:
            raise TableFormatError(f"bad bloom filter settings {config}")
        self.config = config
        self.vector_size = config.vector_size
        self.num_hashes = config.num_hashes
        self.count = 0
        self._rows: list[np.ndarray | None] = [None]

    @property
    def _max_rows(self) -> int:
        if self.config.type_code == SIMPLE:
            return 1
        return max(1, -(-self.config.max_entries // self.config.num_entries))

    def add(self, keys: pa.Array | pa.ChunkedArray | Sequence[str]) -> None:
        chunks = keys.chunks if isinstance(keys, pa.ChunkedArray) else [keys]
        for chunk in chunks:
            for row, part in self._split_by_row(utf8_keys(chunk)):
                bits = self._row_bits(row)
                for start in range(0, len(part), _HASH_BATCH):  # bounds the work arrays
                    for positions in position_rounds(
                        part.slice(start, _HASH_BATCH), self.num_hashes, self.vector_size
                    ):
                        bits[positions] = True
            self.count += len(chunk)

    def _split_by_row(self, keys: pa.Array) -> Iterable[tuple[int, pa.Array]]:
        """The keys of this batch per target row, following Hudi's row choice by key index."""
        if self.config.type_code == SIMPLE:
            yield 0, keys
            return
        start, end = self.count, self.count + len(keys)
        per_row, rows = self.config.num_entries, self._max_rows
        limit = rows * per_row + 1  # keys before this index fill the rows one after the other
        head_end = min(end, max(start, limit))
        index = start
        while index < head_end:
            row = index // per_row if index < rows * per_row else 0  # the key reaching the bound: row 0
            stop = min(head_end, (row + 1) * per_row) if index < rows * per_row else index + 1
            yield row, keys.slice(index - start, stop - index)
            index = stop
        if end > head_end:
            yield from self._round_robin(keys.slice(head_end - start), head_end - limit)

    def _round_robin(self, keys: pa.Array, first_turn: int) -> Iterable[tuple[int, pa.Array]]:
        rows = self._max_rows
        turns = pc.add(pa.array(range(len(keys)), pa.int64()), first_turn)
        row_of_key = pc.remainder(turns, rows)
        for row in range(rows):
            yield row, pc.filter(keys, pc.equal(row_of_key, row))

    def _row_bits(self, row: int) -> np.ndarray:
        while len(self._rows) <= row:
            self._rows.append(None)
        bits = self._rows[row]
        if bits is None:
            bits = self._rows[row] = np.zeros(self.vector_size, np.bool_)
        return bits

    def _active_row_keys(self) -> int:
        per_row, bound = self.config.num_entries, self._max_rows * self.config.num_entries
        if self.count > bound:
            return per_row + self.count - bound
        return 0 if self.count == 0 else (self.count - 1) % per_row + 1

    def build(self) -> BloomFilter:
        rows = tuple(_java_bytes(bits, self.vector_size) for bits in self._rows)
        if self.config.type_code == SIMPLE:
            return BloomFilter(SIMPLE, self.num_hashes, MURMUR_HASH, self.vector_size, rows)
        return BloomFilter(
            DYNAMIC_V0,
            self.num_hashes,
            MURMUR_HASH,
            self.vector_size,
            rows,
            row_threshold=self.config.num_entries,
            active_row_keys=self._active_row_keys(),
        )


def build_bloom_filter(
    keys: pa.Array | pa.ChunkedArray | Sequence[str], config: BloomFilterConfig = DEFAULT_CONFIG
) -> BloomFilter:
    """The filter Hudi writes for ``keys`` added in this order."""
    builder = BloomFilterBuilder(config)
    builder.add(keys)
    return builder.build()
