"""What apply's preflight reads of each table, read at most once for all its checks.

The check that nodes were applied already (an instant carrying the plan id) and the stale check
(the table's fingerprint against the plan's) both need a table's ``hoodie.properties`` and
timeline; on an object store every read is a request, so each table is read once and both
checks see the same state. Nothing read here reaches the nodes: each re-reads its table under
its lock, when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from maintainer.errors import MaintainerError
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.storage import Storage


class TableReads:
    """Each table's storage, ``hoodie.properties`` and timeline by path, read on first use (a
    read that failed fails the same way again, without another request)."""

    def __init__(self, storage_options: Mapping[str, Any]) -> None:
        self.storage_options = storage_options
        self._storages: dict[str, Storage] = {}
        self._read: dict[str, tuple[TableConfig, Timeline] | MaintainerError] = {}

    def storage(self, path: str) -> Storage:
        found = self._storages.get(path)
        if found is None:
            found = self._storages[path] = Storage(path, self.storage_options)
        return found

    def config_and_timeline(self, path: str) -> tuple[TableConfig, Timeline]:
        """The table's ``hoodie.properties`` and timeline (MaintainerError: unreadable)."""
        found = self._read.get(path)
        if found is None:
            found = self._read[path] = self._load(path)
        if isinstance(found, MaintainerError):
            raise found
        return found

    def timeline(self, path: str) -> Timeline:
        return self.config_and_timeline(path)[1]

    def _load(self, path: str) -> tuple[TableConfig, Timeline] | MaintainerError:
        storage = self.storage(path)
        try:
            config = load_config(storage)
            return config, load_timeline(storage, config)
        except MaintainerError as exc:
            return exc
