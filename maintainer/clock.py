"""The wall clock: the type of an injected clock, and the one default every layer uses.

Anything that stamps a time (instant times, run results, ``hoodie.properties`` headers) takes a
``Clock``; tests pass a fixed one, everything else gets ``utc_now``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """Now, timezone-aware, in UTC."""
    return datetime.now(timezone.utc)
