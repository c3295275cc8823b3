"""The iteration order of a ``java.util.HashMap<String, V>``, which Hudi's writer serializes.

Hudi 1.1's ``HFileWriterImpl`` keeps file info (``HFileFileInfoBlock``) and meta blocks in
``HashMap<String, ...>`` and writes them in iteration order. That order is a function of the
keys' ``String.hashCode`` and of the insertion order: entries iterate bucket by bucket
(``(h ^ h >>> 16) & (capacity - 1)``), and within a bucket in insertion order (new nodes go to
the tail, and resizing splits chains without reordering them). The table starts at 16 buckets
and doubles when it holds more than three quarters of its capacity, or when a chain reaches
nine nodes while the table is smaller than 64 buckets (``treeifyBin``). A chain that long in a
bigger table would become a red-black tree, whose order this module does not model: that case
raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Sequence

_INITIAL_CAPACITY = 16
_LOAD_FACTOR_NUMERATOR, _LOAD_FACTOR_DENOMINATOR = 3, 4
_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64


def java_string_hash(text: str) -> int:
    """``String.hashCode`` as an unsigned 32-bit value (computed over UTF-16 code units)."""
    encoded = text.encode("utf-16-be", errors="surrogatepass")
    value = 0
    for index in range(0, len(encoded), 2):
        value = (value * 31 + (encoded[index] << 8 | encoded[index + 1])) & 0xFFFFFFFF
    return value


def _spread(text: str) -> int:
    value = java_string_hash(text)
    return value ^ (value >> 16)


def hashmap_order(keys: Sequence[str]) -> list[int]:
    """Indices of ``keys`` (distinct, in insertion order) in the map's iteration order."""
    if len(set(keys)) != len(keys):
        raise ValueError("HashMap keys must be distinct")
    spreads = [_spread(key) for key in keys]
    capacity = _INITIAL_CAPACITY
    for size, spread in enumerate(spreads):
        chain = sum(1 for earlier in spreads[:size] if (earlier ^ spread) & (capacity - 1) == 0)
        if chain >= _TREEIFY_THRESHOLD:
            if capacity >= _MIN_TREEIFY_CAPACITY:
                raise ValueError(f"key {keys[size]!r} would turn a HashMap bucket into a tree")
            capacity *= 2
        if (size + 1) * _LOAD_FACTOR_DENOMINATOR > capacity * _LOAD_FACTOR_NUMERATOR:
            capacity *= 2
    return sorted(range(len(keys)), key=lambda index: (spreads[index] & (capacity - 1), index))
