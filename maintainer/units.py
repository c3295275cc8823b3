"""Sizes and counts for people, in one unit family everywhere (plan, apply, gates, debug):
binary multiples (KiB, MiB, GiB, TiB: 1,024 each), as the storage consoles users compare with."""

from __future__ import annotations

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def human_bytes(size: int) -> str:
    """``0 B``, ``812 B``, ``1.5 KiB``, ``3.1 GiB``: one decimal above bytes."""
    value = float(size)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            return f"{size:,} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def count(number: int, one: str, many: str | None = None) -> str:
    """``1 file``, ``1,204 files``: the number with thousands separators and the right noun."""
    return f"{number:,} {one if number == 1 else (many or one + 's')}"
