"""Sizes and counts for people."""

from __future__ import annotations

from maintainer.units import count, human_bytes


def test_units_are_binary_multiples_with_separators() -> None:
    assert [human_bytes(n) for n in (0, 1023, 1024, 1536, 5 * 1024**4)] == [
        "0 B",
        "1,023 B",
        "1.0 KiB",
        "1.5 KiB",
        "5.0 TiB",
    ]
    assert count(1, "file") == "1 file" and count(1204, "file") == "1,204 files"
    assert count(2, "file slice") == "2 file slices"
