"""One SparkSession for a whole apply, started on first use (a plan without changes never
starts a JVM), shared by the nodes' threads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LazySpark:
    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._session: Any = None
        self._lock = threading.Lock()

    def __call__(self) -> Any:
        with self._lock:
            if self._session is None:
                self._session = self._factory()
            return self._session

    @property
    def started(self) -> bool:
        return self._session is not None

    def cancel_jobs(self) -> None:
        """Cancel the session's running Spark jobs, if a session was started (the nodes waiting
        on them then fail, and end as stopped): a second Ctrl-C does not wait for a compaction."""
        session = self._session
        if session is None:
            return
        try:
            session.sparkContext.cancelAllJobs()
        except Exception:  # Spark Connect has no SparkContext: interrupt its operations instead
            try:
                session.interruptAll()
            except Exception:
                return
