"""Metadata partitions: names, file-group ids and the key -> file group mapping."""

from __future__ import annotations

import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.partitions import (
    MetadataPartitionKind,
    file_group_index,
    java_string_hash,
    metadata_partition,
)


# Expected values printed by a JDK's String.hashCode.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("a", 97),
        ("hello", 99162322),
        ("files", 97434231),
        ("__all_partitions__", 460616231),
        ("é€😀", 16752006),
    ],
)
def test_java_string_hash_is_javas(text: str, expected: int) -> None:
    assert java_string_hash(text) == expected


def test_file_group_index_is_within_range_and_stable() -> None:
    for key in ("", "us", "region=eu", "x" * 100):
        for count in (1, 2, 7, 10):
            assert 0 <= file_group_index(key, count) < count
    assert file_group_index("anything", 1) == 0


@pytest.mark.parametrize(
    ("name", "kind", "file_id"),
    [
        ("files", MetadataPartitionKind.FILES, "files-0000-0"),
        ("column_stats", MetadataPartitionKind.COLUMN_STATS, "col-stats-0000-0"),
        ("partition_stats", MetadataPartitionKind.PARTITION_STATS, "partition-stats-0000-0"),
        ("record_index", MetadataPartitionKind.RECORD_INDEX, "record-index-0000-0"),
        ("bloom_filters", MetadataPartitionKind.BLOOM_FILTERS, "bloom-filters-0000-0"),
        (
            "secondary_index_txn_date_idx",
            MetadataPartitionKind.SECONDARY_INDEX,
            "secondary-index-txn-date-idx-0000-0",
        ),
        ("expr_index_day", MetadataPartitionKind.EXPRESSION_INDEX, "expr-index-day-0000-0"),
    ],
)
def test_partitions_are_recognised_with_their_file_ids(
    name: str, kind: MetadataPartitionKind, file_id: str
) -> None:
    partition = metadata_partition(name)
    assert partition.kind is kind
    assert partition.file_id(0) == file_id


@pytest.mark.parametrize("name", ["vector_index", "secondary_index_", "files2", ""])
def test_an_unknown_partition_is_refused_with_what_to_do(name: str) -> None:
    with pytest.raises(UnsupportedTableError) as error:
        metadata_partition(name, where="/t/.hoodie/metadata")
    assert repr(name) in error.value.message
    assert error.value.where == "/t/.hoodie/metadata"
    assert "metadata_table: drop" in (error.value.hint or "")
