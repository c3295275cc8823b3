"""Heartbeats of the instants this tool has pending, as Hudi's writers keep them
(``HoodieHeartbeatClient``).

A heartbeat is the empty file ``.hoodie/.heartbeat/<instant time>`` below the table's base path
(the metadata table's below its own: ``.hoodie/metadata/.hoodie/.heartbeat/``); its modification
time is the last beat. The first beat is written before the work starts, then the file is
rewritten every ``hoodie.client.heartbeat.interval_in_ms`` (60 s) by a background thread, and it
is deleted once the instant completes. A writer whose failed-writes policy is LAZY rolls back a
pending instant whose heartbeat is older than ``interval x hoodie.client.heartbeat.tolerable.misses``
(2): without heartbeats, every instant this tool has pending would look abandoned to it.

A crash (or an exception out of the work) stops the beats and leaves the file, which then
expires, as a crashed Hudi writer's does; the instant's completion or removal deletes it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from maintainer.errors import MaintainerError, StorageError
from maintainer.hudi.table.snapshot import HEARTBEAT_DIR
from maintainer.storage import Storage

__all__ = ["HEARTBEAT_DIR", "InstantHeartbeat", "delete_heartbeat", "heartbeat_path", "keep_beating"]
DEFAULT_INTERVAL_S = 60.0
"""``hoodie.client.heartbeat.interval_in_ms`` default (60000)."""


def heartbeat_path(instant_time: str) -> str:
    return f"{HEARTBEAT_DIR}/{instant_time}"


class InstantHeartbeat:
    """The heartbeat of one pending instant: :meth:`start` beats once, then every ``interval_s``
    on a daemon thread until :meth:`stop`."""

    def __init__(self, storage: Storage, instant_time: str, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.storage = storage
        self.instant_time = instant_time
        self.interval_s = interval_s
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.beats = 0

    @property
    def path(self) -> str:
        return heartbeat_path(self.instant_time)

    @property
    def beating(self) -> bool:
        """Whether the background beats still run."""
        return self._thread is not None and self._thread.is_alive()

    def beat(self) -> None:
        """Rewrite the heartbeat file (its modification time becomes now)."""
        self.storage.write_bytes(self.path, b"")
        self.beats += 1

    def start(self) -> None:
        """The first beat, synchronous (the file exists before the work starts), then the rest
        on a background thread."""
        self.beat()
        self._thread = threading.Thread(
            target=self._beat_loop, name=f"maintainer-heartbeat-{self.instant_time}", daemon=True
        )
        self._thread.start()

    def _beat_loop(self) -> None:
        while not self._stopped.wait(self.interval_s):
            try:
                self.beat()
            except StorageError:
                continue  # a transient failure: the next beat retries, as Hudi's timer does
            except MaintainerError:
                return  # writes to the table are fenced off (its lock was lost): let it expire

    def stop(self) -> None:
        """No more beats (the file stays)."""
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def delete(self) -> None:
        self.stop()
        delete_heartbeat(self.storage, self.instant_time)


def delete_heartbeat(storage: Storage, instant_time: str) -> bool:
    """Remove the heartbeat file of ``instant_time`` (``HeartbeatUtils.deleteHeartbeatFile``);
    False where there was none."""
    return storage.delete(heartbeat_path(instant_time))


@contextmanager
def keep_beating(heartbeat: InstantHeartbeat) -> Iterator[InstantHeartbeat]:
    """Beat while the block runs; deleted when it ends normally, left to expire when it raises
    (the instant stays pending, as after a crash)."""
    heartbeat.start()
    try:
        yield heartbeat
    except BaseException:
        heartbeat.stop()
        raise
    heartbeat.delete()
