"""The iteration order of a ``java.util.HashMap<String, V>`` of a given initial capacity and load
factor: Avro writes a map field in that order, so the ``filesystemMetadata`` maps of ``files``
records come out in it.

Entries iterate bucket by bucket (``(h ^ h >>> 16) & (capacity - 1)``, ``h`` the key's
``String.hashCode``) and, within a bucket, in insertion order (resizes split chains without
reordering them). The table is allocated at ``tableSizeFor(initialCapacity)`` buckets and doubles
when the size exceeds ``capacity * loadFactor``, or when a chain reaches nine nodes while the
table has fewer than 64 buckets. A chain that long in a bigger table becomes a red-black tree,
whose order is not modelled here: that raises :class:`UnsupportedTableError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.partitions import java_string_hash

DEFAULT_CAPACITY = 16
DEFAULT_LOAD_FACTOR = Fraction(3, 4)
_TREEIFY_CHAIN = 9
_MIN_TREEIFY_CAPACITY = 64


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= ``capacity`` (at least 1)."""
    size = 1
    while size < capacity:
        size *= 2
    return size


def hashmap_order(
    keys: Sequence[str], capacity: int = DEFAULT_CAPACITY, load_factor: Fraction = DEFAULT_LOAD_FACTOR
) -> list[str]:
    """``keys`` (distinct, in insertion order) in the iteration order of a
    ``new HashMap<>(capacity, loadFactor)`` they were put into."""
    if len(set(keys)) != len(keys):
        raise ValueError("HashMap keys must be distinct")
    spreads = [java_spread(key) for key in keys]
    size = table_size_for(capacity)
    for count, spread in enumerate(spreads):
        chain = 1 + sum(1 for earlier in spreads[:count] if (earlier ^ spread) & (size - 1) == 0)
        if chain >= _TREEIFY_CHAIN:
            if size >= _MIN_TREEIFY_CAPACITY:
                raise UnsupportedTableError(
                    f"{keys[count]!r} is the ninth key of one HashMap bucket; Hudi would turn the "
                    "bucket into a tree, whose order maintainer does not reproduce",
                    hint="leave this table's metadata table to Hudi's own services",
                )
            size *= 2
        if count + 1 > int(size * load_factor):
            size *= 2
    order = sorted(range(len(keys)), key=lambda index: (spreads[index] & (size - 1), index))
    return [keys[index] for index in order]


def java_spread(key: str) -> int:
    """``HashMap.hash`` of a ``String`` key (its hash code with the high half folded in)."""
    value = java_string_hash(key) & 0xFFFFFFFF
    return value ^ (value >> 16)
