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


names_of_a_folder = st.lists(st.text(alphabet="._ab\0", max_size=6))


@given(names_of_a_folder, st.text(alphabet="._ab\0", max_size=3))
def test_names_starting_with_a_prefix_are_found_in_the_joined_string(names: list[str], prefix: str) -> None:
    expected = [index for index, name in enumerate(names) if name.startswith(prefix)]
    assert Names(names).indexes_starting_with(prefix) == expected


def test_a_marker_among_many_names_is_found_at_its_index() -> None:
    names = [f"file-{i}.parquet" for i in range(500)]
    names[317] = ".hoodie_partition_metadata"
    names.append(".hoodie_partition_metadata_2")
    assert Names(names).indexes_starting_with(".hoodie_partition_metadata") == [317, 500]
