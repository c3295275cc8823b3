"""Hadoop's hash functions as Hudi's bloom filters use them: the bit positions of a key.

A key is hashed as its UTF-8 bytes, ``k`` times: ``h_i = hash(bytes, seed=h_{i-1})`` with
``h_0`` seeded 0, giving bit ``abs(h_i % bits)`` (Java's signed remainder). One key at a time
(probing a filter: Murmur or Jenkins), or whole arrays of keys at once with numpy (building
one: Murmur, keys of one byte length together, no per-key Python loop).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa

from maintainer.errors import TableFormatError

JENKINS_HASH = 0
MURMUR_HASH = 1
"""Hudi's hash type codes, as a filter's header records them."""

_MASK32 = 0xFFFFFFFF
_MURMUR_M = 0x5BD1E995


# --- one key ------------------------------------------------------------------------------


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


# --- many keys at once, numpy -------------------------------------------------------------

_M32 = np.uint32(_MURMUR_M)


def utf8_keys(keys: pa.Array | Sequence[str]) -> pa.Array:
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


def position_rounds(keys: pa.Array, num_hashes: int, vector_size: int) -> Iterator[np.ndarray]:
    """The bit positions of ``keys`` (as :func:`utf8_keys` gives them; Murmur), one array per
    hash round of the keys of each byte length."""
    if len(keys) == 0:
        return
    for _, matrix in _same_length_groups(keys):
        yield from _murmur_rounds(matrix, num_hashes, vector_size)


def murmur_positions(keys: pa.Array | Sequence[str], num_hashes: int, vector_size: int) -> pa.Array:
    """The bit positions of all ``keys`` (Murmur), as one flat int64 array (order unspecified)."""
    rounds = list(position_rounds(utf8_keys(keys), num_hashes, vector_size))
    return pa.array(np.concatenate(rounds).astype(np.int64) if rounds else np.zeros(0, np.int64))
