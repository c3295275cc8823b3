"""The pools of threads that list folders, one per calling thread and process."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

DEFAULT_LISTING_THREADS = 16


class _ListingPools(threading.local):
    """Per thread: (process id, size) -> its pool of listing threads."""

    def __init__(self) -> None:
        self.pools: dict[tuple[int, int], ThreadPoolExecutor] = {}


_LISTING_POOLS = _ListingPools()


LOCAL_LISTED_IN_THREAD = 16
"""Local folders listed by the calling thread rather than the listing pool, up to this many: a
local folder lists in tens of microseconds, about what handing it to a pool thread costs (a
lake of 2,000 tables of 10 partitions, 4 at once, planned in three quarters of the time)."""


def listing_pool(threads: int) -> ThreadPoolExecutor:
    """The calling thread's pool of ``threads`` listing threads, kept while that thread lives
    (a plan lists table after table: a pool started and stopped per table cost a lake of 500
    small tables a third of its planning time). Per thread, so tables planned at once each
    list with their own threads, as before; per process, so a forked child (a Spark Python
    worker) never waits on its parent's threads. The pool's threads end once its thread is
    gone."""
    pools, pid = _LISTING_POOLS.pools, os.getpid()
    pool = pools.get((pid, threads))
    if pool is None:
        for inherited in [key for key in pools if key[0] != pid]:
            del pools[inherited]  # a forked parent's pool: its threads are not in this process
        pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="maintainer-listing")
        pools[(pid, threads)] = pool
    return pool
