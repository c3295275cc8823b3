"""The compact listing columns read as the lists they were made from: iteration, length,
indexing, equality, pickling; a name holding a NUL and None values survive."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from maintainer.storage.columns import Names, OptionalInts

int64 = st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)


@given(st.lists(st.text()))
def test_names_read_as_the_list_they_were_made_from(names: list[str]) -> None:
    column = Names(names)
    assert list(column) == names and len(column) == len(names) and column == names
    assert [column[i] for i in range(len(names))] == names and column[1:] == names[1:]
    assert pickle.loads(pickle.dumps(column)) == names
    assert all(name in column for name in names)


def test_an_empty_name_and_no_names_differ() -> None:
    assert list(Names([])) == [] and list(Names([""])) == [""] and list(Names(["", ""])) == ["", ""]


@given(st.lists(st.none() | int64))
def test_optional_ints_read_as_the_list_they_were_made_from(values: list[int | None]) -> None:
    column = OptionalInts(values)
    assert list(column) == values and len(column) == len(values) and column == values
    assert [column[i] for i in range(len(values))] == values and column[:2] == values[:2]
    assert pickle.loads(pickle.dumps(column)) == values


def test_columns_are_not_equal_to_other_values() -> None:
    assert Names(["a"]) != "a" and Names(["a"]) != ["b"] and OptionalInts([1]) != [None]
