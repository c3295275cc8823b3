"""A pause of Python's cyclic garbage collector while many acyclic objects are built."""

from __future__ import annotations

import gc
import threading
from contextlib import AbstractContextManager


class _GcPause:
    """Pauses Python's cyclic garbage collector while bulk-building acyclic objects.

    Listings and views create hundreds of thousands of small objects without reference
    cycles; the cyclic collector would otherwise rescan them over and over (it was half the
    time of building a 100,000-file view). Reference counting still frees everything.
    Re-entrant and thread-safe: the collector resumes when the last user leaves.

    On resuming, the objects alive are moved to the oldest generation (``gc.freeze()`` then
    ``gc.unfreeze()``, no scan): what was just built lives as long as the plan, and the young
    generations would otherwise scan all of it once or twice more (a tenth of loading a
    100,000-file table). Cyclic garbage among them is still collected, by full collections.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._was_enabled = False

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._depth += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._was_enabled:
                gc.freeze()
                gc.unfreeze()
                gc.enable()


_GC_PAUSE = _GcPause()


def paused_gc() -> AbstractContextManager[None]:
    """``with paused_gc():`` around bulk construction of many acyclic objects."""
    return _GC_PAUSE
