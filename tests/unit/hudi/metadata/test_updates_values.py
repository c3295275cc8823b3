"""Stats values in Java's order and byte layouts, and Java ``HashMap`` iteration order (checked
against every multi-partition ``__all_partitions__`` record of the fixtures)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.updates.java_map import hashmap_order, table_size_for
from maintainer.hudi.metadata.updates.values import (
    V1,
    ValueMeta,
    ValueType,
    Wrapped,
    java_bytes,
    java_max,
    java_min,
    v1_decimal,
)
from tests.support.fixtures import FixtureTable, metadata_fixture_names
from tests.unit.hudi.metadata.mdt_blocks import all_cells

STRING = ValueMeta(ValueType.STRING)
DOUBLE = ValueMeta(ValueType.DOUBLE)


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (0, b"\x00"),
        (127, b"\x7f"),
        (128, b"\x00\x80"),
        (-1, b"\xff"),
        (-128, b"\x80"),
        (-129, b"\xff\x7f"),
        (2500, b"\t\xc4"),
    ],
)
def test_java_bytes_is_biginteger_to_byte_array(number: int, expected: bytes) -> None:
    assert java_bytes(number) == expected
    assert int.from_bytes(expected, "big", signed=True) == number


def test_strings_compare_by_utf16_code_units() -> None:
    low, high = Wrapped("StringWrapper", "\U00010000"), Wrapped("StringWrapper", "\uffff")
    assert java_min(high, low, STRING) == low  # a surrogate pair sorts before U+FFFF in Java
    assert java_max(low, high, STRING) == high


def test_doubles_compare_like_double_compare_to() -> None:
    minus, plus = Wrapped("DoubleWrapper", -0.0), Wrapped("DoubleWrapper", 0.0)
    nan = Wrapped("DoubleWrapper", float("nan"))
    assert java_min(plus, minus, DOUBLE) is minus
    assert java_max(minus, plus, DOUBLE) is plus
    assert java_max(nan, plus, DOUBLE) is nan


def test_bytes_compare_signed_and_v2_decimals_numerically() -> None:
    high, low = Wrapped("BytesWrapper", b"\x7f"), Wrapped("BytesWrapper", b"\x80")
    assert java_min(high, low, ValueMeta(ValueType.BYTES)) == low
    decimal = ValueMeta(ValueType.DECIMAL, 10, 2)
    small, big = Wrapped("BytesWrapper", b"\xff"), Wrapped("BytesWrapper", b"\x00\x80")
    assert java_min(big, small, decimal) == small
    assert java_max(small, big, decimal) == big


def test_uuids_compare_by_signed_halves() -> None:
    uuid = ValueMeta(ValueType.UUID)
    negative = Wrapped("StringWrapper", "80000000-0000-0000-0000-000000000000")
    zero = Wrapped("StringWrapper", "00000000-0000-0000-0000-000000000000")
    assert java_min(zero, negative, uuid) == negative


def test_a_null_bound_yields_to_the_other_and_a_tie_keeps_the_right() -> None:
    a, b = Wrapped("LongWrapper", 5), Wrapped("LongWrapper", 5)
    assert java_min(None, a, V1) is a and java_max(a, None, V1) is a
    assert java_min(a, b, V1) is b and java_max(a, b, V1) is b


def test_values_of_two_wrappers_do_not_merge() -> None:
    with pytest.raises(UnsupportedTableError, match="IntWrapper and a LongWrapper"):
        java_min(Wrapped("IntWrapper", 1), Wrapped("LongWrapper", 2), V1)


def test_v1_decimals_are_rescaled_to_scale_15() -> None:
    assert v1_decimal(1250, 2, "f") == Wrapped("DecimalWrapper", java_bytes(1250 * 10**13))
    assert v1_decimal(-5 * 10**5, 20, "f") == Wrapped("DecimalWrapper", java_bytes(-5))
    with pytest.raises(UnsupportedTableError, match="scale 20"):
        v1_decimal(1, 20, "f")
    with pytest.raises(UnsupportedTableError, match="decimal\\(30, 15\\)"):
        v1_decimal(10**20, 2, "f")


def test_value_type_info_round_trips() -> None:
    decimal = ValueMeta(ValueType.DECIMAL, 15, 2)
    assert decimal.type_info() == {"typeOrdinal": 10, "additionalInfo": "15,2"}
    assert ValueMeta.from_type_info(decimal.type_info()) == decimal
    assert ValueMeta(ValueType.TIMESTAMP_MICROS).type_info() == {"typeOrdinal": 16, "additionalInfo": None}
    assert V1.type_info() is None and ValueMeta.from_type_info(None) == V1


def test_hashmap_order_by_bucket_then_insertion() -> None:
    assert table_size_for(0) == table_size_for(1) == 1 and table_size_for(5) == 8
    assert hashmap_order(["y", "Aa", "BB"], capacity=3, load_factor=Fraction(1)) == ["Aa", "BB", "y"]
    assert hashmap_order(["BB", "y", "Aa"], capacity=3, load_factor=Fraction(1)) == ["BB", "Aa", "y"]
    with pytest.raises(ValueError, match="distinct"):
        hashmap_order(["a", "a"])


def test_hashmap_grows_past_its_load_factor() -> None:
    keys = [f"k{i}" for i in range(13)]  # 13 > 16 * 3/4: 32 buckets
    expected = sorted(keys, key=lambda k: (_spread(k) & 31, keys.index(k)))
    assert hashmap_order(keys) == expected


def test_a_bucket_that_would_become_a_tree_is_refused() -> None:
    colliding = ["".join(p) for p in itertools.product(("Aa", "BB"), repeat=4)]  # one String.hashCode
    assert len(hashmap_order(colliding[:10])) == 10  # the chain grows the table to 64 buckets
    with pytest.raises(UnsupportedTableError, match="tree"):
        hashmap_order(colliding[:11])


def _spread(key: str) -> int:
    value = 0
    for char in key:
        value = (31 * value + ord(char)) & 0xFFFFFFFF
    return value ^ (value >> 16)


@pytest.mark.fixtures
def test_partition_lists_iterate_like_a_default_hashmap(fixture_table: Callable[[str], FixtureTable]) -> None:
    names = metadata_fixture_names()
    if not names:
        pytest.skip("no fixtures")
    checked = 0
    for name in names:
        for partitions in _partition_lists(fixture_table(name).path):
            for permutation in itertools.permutations(partitions):
                assert hashmap_order(list(permutation)) == partitions
            checked += 1
    assert checked >= 30


def _partition_lists(path: Path) -> list[list[str]]:
    found = []
    for record in all_cells(path, "files", "__all_partitions__"):
        entries = list(record["filesystemMetadata"] or {})
        if len(entries) >= 2:
            found.append(entries)
    return found
