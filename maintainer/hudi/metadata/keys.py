"""Record keys of the index partitions (``ColumnIndexID``, ``PartitionIndexID``,
``FileIndexID`` in Hudi): each part is a hash, base64-encoded without padding removal.

- ``column_stats``: hash(column) + hash(partition) + hash(file name);
- ``partition_stats``: hash(column) + hash(partition);
- ``bloom_filters``: hash(partition) + hash(file name).

Columns and partitions hash with XXH64 (seed ``(long)(int)0xdabadaba``; the 64-bit hash as
8 bytes, most significant first), file names with MD5 (16 bytes), all UTF-8. The non-partitioned
partition is ``.``. Checked against every column_stats and partition_stats key of the fixtures'
metadata tables.
"""

from __future__ import annotations

import base64
import hashlib

import xxhash

from maintainer.hudi.metadata.partitions import NON_PARTITIONED_KEY

XXH64_SEED = 0xFFFFFFFF_DABADABA
"""``(long)(int)0xdabadaba`` as the unsigned 64-bit seed: the int is negative, so the long
is sign-extended (``0xffffffffdabadaba``)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def column_id(column: str) -> str:
    return _b64(xxhash.xxh64(column.encode("utf-8"), seed=XXH64_SEED).digest())


def partition_id(partition: str) -> str:
    name = partition or NON_PARTITIONED_KEY
    return _b64(xxhash.xxh64(name.encode("utf-8"), seed=XXH64_SEED).digest())


def file_id(file_name: str) -> str:
    return _b64(hashlib.md5(file_name.encode("utf-8"), usedforsecurity=False).digest())


def column_stats_key(column: str, partition: str, file_name: str) -> str:
    return column_id(column) + partition_id(partition) + file_id(file_name)


def partition_stats_key(column: str, partition: str) -> str:
    return column_id(column) + partition_id(partition)


def bloom_filter_key(partition: str, file_name: str) -> str:
    return partition_id(partition) + file_id(file_name)
