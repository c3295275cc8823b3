"""Durations as people write them in manifests: ``90s``, ``15m``, ``1h30m``, ``7d``, ``2w``."""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)([wdhms])")
DURATION_PATTERN = r"^\s*(\d+[wdhms]\s*)+$|^\s*\d+\s*$"


def parse_duration(value: object) -> timedelta:
    """A timedelta from ``1h30m`` style text (or whole seconds); ValueError when malformed."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, bool):
        raise ValueError("a duration is text such as '1h', '30m', '7d', not true/false")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a duration cannot be negative")
        return timedelta(seconds=value)
    if not isinstance(value, str):
        raise ValueError(f"a duration is text such as '1h', '30m', '7d', got {value!r}")
    text = value.strip().lower().replace(" ", "")
    if text.isdigit():
        return timedelta(seconds=int(text))
    if not text or _PART.sub("", text):
        raise ValueError(f"'{value}' is not a duration; write e.g. '90s', '15m', '1h30m', '7d', '2w'")
    seen: set[str] = set()
    seconds = 0
    for amount, unit in _PART.findall(text):
        if unit in seen:
            raise ValueError(f"'{value}' gives the unit '{unit}' twice")
        seen.add(unit)
        seconds += int(amount) * _UNITS[unit]
    return timedelta(seconds=seconds)


def format_duration(value: timedelta) -> str:
    """The canonical text of a duration: largest units first, ``0s`` for zero."""
    remaining = int(value.total_seconds())
    if remaining == 0:
        return "0s"
    parts = []
    for unit, size in _UNITS.items():
        if unit == "w" and remaining % size:
            continue
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
