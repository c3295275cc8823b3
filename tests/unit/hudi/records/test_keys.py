"""The record-key range Hudi's footer records: Java ``String`` order, per batch and over the
batches of a file."""

from __future__ import annotations

import pyarrow as pa

from maintainer.hudi.records.keys import KeyRange, key_range


def test_key_range_looks_for_surrogate_pairs_only_inside_sliced_chunks() -> None:
    keys = pa.array(["\U0001f642x", "\ufffdz", "abc", "\U0001f642y"])
    # outside the slice the 4-byte character does not count; code point order is Java's there
    assert key_range(pa.chunked_array([keys.slice(1, 2)])) == ("abc", "\ufffdz")
    # inside one chunk of several it does: Java puts U+1F642 (0xD83D...) before U+FFFD
    chunked = pa.chunked_array([keys.slice(1, 2), keys.slice(3, 1)])
    assert key_range(chunked) == ("abc", "\ufffdz")
    assert key_range(pa.chunked_array([pa.array(["\U0001f642y", "\ufffd"])])) == (
        "\U0001f642y",
        "\ufffd",
    )


def test_the_range_of_several_batches_is_taken_in_java_order() -> None:
    keys = KeyRange()
    assert (keys.low, keys.high) == (None, None)
    keys.add(pa.chunked_array([pa.array(["m", "\ufffdz"])]))
    keys.add(pa.chunked_array([pa.array(["\U0001f642x", "b"])]))  # U+1F642 sorts before U+FFFD in Java
    assert (keys.low, keys.high) == ("b", "\ufffdz")
    keys.add(pa.chunked_array([pa.array(["a"])]))
    assert (keys.low, keys.high) == ("a", "\ufffdz")
