"""Open a table: its state (snapshot from storage, facts decoded from its instants, file-system
view). Every reader of a table goes through :func:`read_table_state`; projections of a plan
return a ``TableState`` too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.fsview import FileSystemView, build_view, view_as_of
from maintainer.hudi.file_groups.integrity import (
    CommittedSize,
    InterruptedCompletion,
    verify_newest_on_storage,
    verify_table,
    without_interrupted,
)
from maintainer.hudi.file_groups.view_inputs import load_view_inputs
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.projection import Projection
from maintainer.hudi.table.snapshot import MetadataTableInfo, TableSnapshot, load_snapshot
from maintainer.storage import Storage
from maintainer.storage.listing import Listings


@dataclass(frozen=True)
class TableState:
    """A table as read at one moment: its storage, snapshot and file-system view (or, with
    ``projection``, as it will be after earlier nodes of a plan ran)."""

    storage: Storage
    snapshot: TableSnapshot
    view: FileSystemView
    projection: Projection | None = None
    committed: Mapping[str, CommittedSize] = field(default_factory=dict, repr=False, compare=False)
    referenced: frozenset[str] | None = field(default=None, repr=False, compare=False)
    """The data files the active timeline's completed instants account for (None: not read,
    ``verify=False``); see :mod:`maintainer.hudi.file_groups.orphans`."""
    """Data file path -> the size its write stats recorded (from the integrity check)."""
    interrupted: tuple[InterruptedCompletion, ...] = field(default=(), compare=False)
    """Completions cut short, read as inflight (the snapshot's timeline already reads them so;
    apply deletes their completed files under the lock and completes them again)."""

    def view_as_of(self, timestamp: str) -> FileSystemView:
        return view_as_of(self.view, self.snapshot.listings, timestamp)


def open_table(
    path: str,
    storage_options: Mapping[str, Any] | None = None,
    partitions: Iterable[str] | None = None,
    verify: bool = True,
    *,
    sizes: bool = True,
) -> TableState:
    """The table at ``path`` (see :func:`read_table_state`)."""
    return read_table_state(Storage(path, storage_options), partitions, verify, sizes=sizes)


def read_table_state(
    storage: Storage,
    partitions: Iterable[str] | None = None,
    verify: bool = True,
    listed: Listings | None = None,
    *,
    config: TableConfig | None = None,
    timeline: Timeline | None = None,
    metadata_table: MetadataTableInfo | None = None,
    sizes: bool = True,
) -> TableState:
    """Read a table (never writes); ``partitions`` limits the listing (default: all). Raises
    TableFormatError for anything that is not a readable Hudi table of a supported version, and
    CorruptTableError (:mod:`maintainer.hudi.file_groups.integrity`) for damaged instant or data files, so
    that neither planning nor apply relies on them; ``verify=False`` skips that check, for
    commands that only look at a table (``inspect`` shows a damaged table as it is). A table
    service's completion cut short is read as inflight (``TableState.interrupted``). ``listed``
    replaces the storage listing (planning from the metadata table's ``files`` partition; the
    files of the newest commit are then checked against storage, whose sizes that listing does
    not have).
    ``config``, ``timeline``, ``metadata_table``: the table's ``hoodie.properties``, active
    timeline and metadata-table presence as this command already read them (not read again).
    ``sizes=False``: the readers need names and a few sizes (a clean): local partitions are
    listed without a ``stat`` per file, sizes asked on demand (the integrity check asks for
    those the commits recorded)."""
    snapshot = load_snapshot(
        storage,
        partitions,
        listed,
        config=config,
        timeline=timeline,
        metadata_table=metadata_table,
        sizes=sizes,
    )
    committed: Mapping[str, CommittedSize] = {}
    referenced: frozenset[str] | None = None
    interrupted: tuple[InterruptedCompletion, ...] = ()
    if verify:
        inspection = verify_table(storage, snapshot)
        committed, interrupted = inspection.committed, tuple(inspection.interrupted)
        referenced = inspection.referenced
        if interrupted:
            snapshot = replace(snapshot, timeline=without_interrupted(snapshot.timeline, interrupted))
        if listed is not None:
            verify_newest_on_storage(storage, committed)
    inputs = load_view_inputs(storage, snapshot)
    view = build_view(snapshot.timeline, snapshot.listings, inputs)
    return TableState(
        storage, snapshot, view, committed=committed, interrupted=interrupted, referenced=referenced
    )
