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

A key is hashed as its UTF-8 bytes, ``k`` times: ``h_i = hash(bytes, seed=h_{i-1})``
with ``h_0`` seeded 0, giving bit ``abs(h_i % bits)`` (Java's signed remainder). A
dynamic filter fills a row with ``nr`` keys, then opens the next one while
``rows * nr < max_entries``; past that bound it spreads keys over the rows round-robin
(first to row 0, then row 0, 1, ... again), exactly as Hudi's
``InternalDynamicBloomFilter`` does, so the same keys in the same order give the
same bytes. Building hashes whole arrays of keys at once with numpy, keys of one byte
length together (no per-key Python loop).
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from maintainer.errors import CorruptFileError, TableFormatError

BLOOM_FILTER_KEY = "org.apache.hudi.bloomfilter"
LEGACY_BLOOM_FILTER_KEY = "com.uber.hoodie.bloomfilter"
TYPE_CODE_KEY = "hoodie_bloom_filter_type_code"

SIMPLE = "SIMPLE"
DYNAMIC_V0 = "DYNAMIC_V0"
JENKINS_HASH = 0
MURMUR_HASH = 1

_VERSION = -1
_HEADER = struct.Struct(">iibi")
_DYNAMIC_FIELDS = struct.Struct(">iii")
_MASK32 = 0xFFFFFFFF
_MURMUR_M = 0x5BD1E995
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


# --- hash functions (one key) -------------------------------------------------------------


def _signed(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def murmur_hash(data: bytes, seed: int) -> int:
    """Hadoop's 32-bit MurmurHash (2.0 variant) of ``data``, as a signed int.

    Unlike reference MurmurHash2, Hadoop folds a 1-3 byte tail in as sign-extended Java
    bytes, the first tail byte shifted highest (``b[n-3] << 16 ^ b[n-2] << 8 ^ b[n-1]``).
    """
    length = len(data)
    h = (seed ^ length) & _MASK32
    blocks = length >> 2
    for i in range(blocks):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = (k * _MURMUR_M) & _MASK32
        k ^= k >> 24
        k = (k * _MURMUR_M) & _MASK32
        h = ((h * _MURMUR_M) & _MASK32) ^ k
    tail = data[4 * blocks :]
    if tail:
        for shift, byte in zip((16, 8, 0)[3 - len(tail) :], tail, strict=True):
            h ^= ((byte - 256 if byte > 127 else byte) << shift) & _MASK32
        h = (h * _MURMUR_M) & _MASK32
    h ^= h >> 13
    h = (h * _MURMUR_M) & _MASK32
    h ^= h >> 15
    return _signed(h)


def _rot(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (32 - shift))) & _MASK32


def _jenkins_mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    a = ((a - c) & _MASK32) ^ _rot(c, 4)
    c = (c + b) & _MASK32
    b = ((b - a) & _MASK32) ^ _rot(a, 6)
    a = (a + c) & _MASK32
    c = ((c - b) & _MASK32) ^ _rot(b, 8)
    b = (b + a) & _MASK32
    a = ((a - c) & _MASK32) ^ _rot(c, 16)
    c = (c + b) & _MASK32
    b = ((b - a) & _MASK32) ^ _rot(a, 19)
    a = (a + c) & _MASK32
    c = ((c - b) & _MASK32) ^ _rot(b, 4)
    b = (b + a) & _MASK32
    return a, b, c


def _jenkins_final(a: int, b: int, c: int) -> int:
    c = ((c ^ b) - _rot(b, 14)) & _MASK32
    a = ((a ^ c) - _rot(c, 11)) & _MASK32
    b = ((b ^ a) - _rot(a, 25)) & _MASK32
    c = ((c ^ b) - _rot(b, 16)) & _MASK32
    a = ((a ^ c) - _rot(c, 4)) & _MASK32
    b = ((b ^ a) - _rot(a, 14)) & _MASK32
    return ((c ^ b) - _rot(b, 24)) & _MASK32


def jenkins_hash(data: bytes, seed: int) -> int:
    """Hadoop's JenkinsHash (Bob Jenkins' lookup3 ``hashlittle``), as a signed int."""
    a = b = c = (0xDEADBEEF + len(data) + seed) & _MASK32
    offset, length = 0, len(data)
    while length > 12:
        a = (a + int.from_bytes(data[offset : offset + 4], "little")) & _MASK32
        b = (b + int.from_bytes(data[offset + 4 : offset + 8], "little")) & _MASK32
        c = (c + int.from_bytes(data[offset + 8 : offset + 12], "little")) & _MASK32
        a, b, c = _jenkins_mix(a, b, c)
        offset, length = offset + 12, length - 12
    if length == 0:
        return _signed(c)
    last = data[offset:].ljust(12, b"\0")
    a = (a + int.from_bytes(last[0:4], "little")) & _MASK32
    b = (b + int.from_bytes(last[4:8], "little")) & _MASK32
    c = (c + int.from_bytes(last[8:12], "little")) & _MASK32
    return _signed(_jenkins_final(a, b, c))


def key_positions(key: bytes, num_hashes: int, vector_size: int, hash_type: int = MURMUR_HASH) -> list[int]:
    """The bit positions of one key, as Hudi's ``HashFunction.hash``."""
    hash_function = murmur_hash if hash_type == MURMUR_HASH else jenkins_hash
    positions, seed = [], 0
    for _ in range(num_hashes):
        seed = hash_function(key, seed)
        positions.append(abs(seed) % vector_size)
    return positions


# --- hash functions (many keys at once, numpy) ----------------------------------------------

_M32 = np.uint32(_MURMUR_M)


def _utf8_keys(keys: pa.Array | Sequence[str]) -> pa.Array:
    """The keys as a plain ``string``/``binary`` array (offsets + data buffers), no nulls."""
    array = keys if isinstance(keys, pa.Array) else pa.array(list(keys), pa.string())
    kind = array.type
    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        array = array.cast(pa.string())
    elif pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind):
        array = array.cast(pa.binary())
    if not (pa.types.is_string(array.type) or pa.types.is_binary(array.type)):
        raise TableFormatError(f"record keys must be strings, not {array.type}")
    if array.null_count:
        raise TableFormatError("a null record key cannot go into a bloom filter")
    return array


def _key_bytes(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (``len + 1`` int64) and the data bytes of a string array, without copies."""
    offsets_buffer, data_buffer = array.buffers()[1], array.buffers()[2]
    offsets = np.frombuffer(offsets_buffer, np.int32, len(array) + 1, 4 * array.offset).astype(np.int64)
    data = np.frombuffer(data_buffer, np.uint8) if data_buffer else np.zeros(0, np.uint8)
    return offsets, data


def _same_length_groups(array: pa.Array) -> Iterator[tuple[int, np.ndarray]]:
    """(byte length, matrix of the keys' bytes, one row per key) per distinct key length."""
    offsets, data = _key_bytes(array)
    lengths = np.diff(offsets)
    if len(lengths) and (lengths == 0).any():
        raise TableFormatError("an empty record key cannot go into a bloom filter")
    first = int(lengths[0])
    if (lengths == first).all():  # one length: the keys lie back to back
        yield first, data[offsets[0] : offsets[-1]].reshape(len(lengths), first)
        return
    for length in np.unique(lengths).tolist():
        starts = offsets[:-1][lengths == length]
        matrix = np.empty((len(starts), length), np.uint8)
        for column in range(length):  # byte by byte: no index array of every byte
            matrix[:, column] = data[starts + column]
        yield length, matrix


def _murmur_words(matrix: np.ndarray) -> np.ndarray:
    """The seed-independent mixed 4-byte words of same-length keys: one row per word."""
    blocks = matrix.shape[1] >> 2
    words = np.ascontiguousarray(matrix[:, : 4 * blocks]).view("<u4").astype(np.uint32)
    words = np.ascontiguousarray(words.T)
    words *= _M32
    words ^= words >> np.uint32(24)
    words *= _M32
    return words


def _murmur_tail(matrix: np.ndarray) -> np.ndarray | None:
    """The seed-independent tail term (last ``length % 4`` bytes, sign-extended Java bytes
    the first one shifted highest), None when there is none."""
    length = matrix.shape[1]
    left = length & 3
    if not left:
        return None
    tail = np.zeros(matrix.shape[0], np.uint32)
    for index, shift in enumerate((16, 8, 0)[3 - left :]):
        term = matrix[:, length - left + index].view(np.int8).astype(np.int32).view(np.uint32)
        tail ^= term << np.uint32(shift)
    return tail


def _murmur_rounds(matrix: np.ndarray, num_hashes: int, vector_size: int) -> Iterator[np.ndarray]:
    """Bit positions (one uint32 array per hash round) of same-length keys, Hudi's chained seeds."""
    words, tail = _murmur_words(matrix), _murmur_tail(matrix)
    count, length = matrix.shape
    h = np.zeros(count, np.uint32)
    scratch = np.empty(count, np.uint32)
    for _ in range(num_hashes):
        h ^= np.uint32(length)  # the seed is the previous round's hash
        for word in words:
            h *= _M32
            h ^= word
        if tail is not None:
            h ^= tail
            h *= _M32
        np.right_shift(h, np.uint32(13), out=scratch)
        h ^= scratch
        h *= _M32
        np.right_shift(h, np.uint32(15), out=scratch)
        h ^= scratch
        yield _java_abs_remainder(h, vector_size)


def _java_abs_remainder(h: np.ndarray, vector_size: int) -> np.ndarray:
    """``Math.abs(hash % vectorSize)`` of Java ints given as uint32, i.e. ``|hash| mod
    vectorSize``: an int32 ``abs`` leaves ``Integer.MIN_VALUE`` as is, whose uint32 view is
    its magnitude 2^31."""
    magnitude = np.abs(h.view(np.int32)).view(np.uint32)
    return magnitude % np.uint32(vector_size)


def _position_rounds(keys: pa.Array, num_hashes: int, vector_size: int) -> Iterator[np.ndarray]:
    if len(keys) == 0:
        return
    for _, matrix in _same_length_groups(keys):
        yield from _murmur_rounds(matrix, num_hashes, vector_size)


def murmur_positions(keys: pa.Array | Sequence[str], num_hashes: int, vector_size: int) -> pa.Array:
    """The bit positions of all ``keys`` (Murmur), as one flat int64 array (order unspecified)."""
    rounds = list(_position_rounds(_utf8_keys(keys), num_hashes, vector_size))
    return pa.array(np.concatenate(rounds).astype(np.int64) if rounds else np.zeros(0, np.int64))


def _java_bytes(bits: np.ndarray | None, vector_size: int) -> bytes:
    """The Java byte layout of a bit vector (bit i -> byte i/8, mask 1 << i%8)."""
    if bits is None:
        return bytes((vector_size + 7) // 8)
    return np.packbits(bits, bitorder="little").tobytes()


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
            for row, part in self._split_by_row(_utf8_keys(chunk)):
                bits = self._row_bits(row)
                for start in range(0, len(part), _HASH_BATCH):  # bounds the work arrays
                    for positions in _position_rounds(
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
