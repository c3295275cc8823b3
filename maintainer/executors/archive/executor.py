"""Carry out an archive plan (Spark-agnostic: archival is a few small files).

1. the archived records are written and read back (v6: a new ``.commits_.archive.N`` log file;
   v8: a new LSM level-0 file, manifest and ``_version_``), skipping instants an interrupted run
   already archived, so a re-run neither loses nor duplicates an instant;
2. then the instant files are deleted: every requested file, then every inflight file, then the
   completed files one by one in ascending order (HUDI-7207), and leftover markers.

``fault`` is called with the name of each step once done (tests make it raise, as a crash would).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.executors.archive import lsm, v6_log
from maintainer.executors.archive.entries import archived_meta_entries, lsm_timeline_instant
from maintainer.executors.archive.selection import ArchivePlanResult
from maintainer.executors.faults import Fault, no_fault
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.archived import archived_instants
from maintainer.hudi.instants.instant import State
from maintainer.hudi.instants.timeline import TimelineEntry
from maintainer.hudi.table.snapshot import MARKERS_DIR, load_timeline
from maintainer.storage import Storage


@dataclass(frozen=True)
class ArchiveOutcome:
    archive_file: str | None
    """The archive file written (None: everything was archived by an earlier run)."""
    records_written: int
    deleted_files: tuple[str, ...]


def _reader(storage: Storage, config: TableConfig) -> Callable[[str], tuple[bytes, str]]:
    def read(name: str) -> tuple[bytes, str]:
        path = f"{config.timeline_dir}/{name}"
        return storage.read_bytes(path), storage.uri(path)

    return read


def _write_v6(
    storage: Storage, config: TableConfig, entries: Sequence[TimelineEntry]
) -> tuple[str | None, int]:
    read = _reader(storage, config)
    done = v6_log.latest_archived_keys(storage, config.archive_dir)
    records = [r for e in entries for r in archived_meta_entries(e, read) if v6_log.entry_key(r) not in done]
    if not records:
        return None, 0
    return v6_log.write_archive_file(storage, config.archive_dir, records), len(records)


def _write_lsm(
    storage: Storage, config: TableConfig, entries: Sequence[TimelineEntry]
) -> tuple[str | None, int]:
    read = _reader(storage, config)
    since = min(e.timestamp for e in entries)
    done = {(r.instant_time, r.action) for r in archived_instants(storage, config.archive_dir, since)}
    rows = [lsm_timeline_instant(e, read) for e in entries if e.state_files.get(State.COMPLETED)]
    rows = [r for r in rows if (r.instant_time, r.action) not in done]
    if not rows:
        return None, 0
    return lsm.write_history(storage, config.archive_dir, rows), len(rows)


def _delete_states(
    storage: Storage, config: TableConfig, entries: Sequence[TimelineEntry], state: State
) -> list[str]:
    deleted = []
    for entry in entries:
        name = entry.state_files.get(state)
        if name is not None and storage.delete(f"{config.timeline_dir}/{name}"):
            deleted.append(name)
    return deleted


def run_archive(
    storage: Storage, config: TableConfig, plan: ArchivePlanResult, *, fault: Fault = no_fault
) -> ArchiveOutcome:
    """Archive the planned instants that are still on the timeline."""
    timeline = load_timeline(storage, config)
    entries = sorted(
        (
            e
            for i in plan.instants
            if (e := timeline.entry(i.timestamp, i.action)) is not None and e.instant.is_completed
        ),
        key=lambda e: e.instant.sort_key(),
    )
    if not entries:
        return ArchiveOutcome(None, 0, ())
    write = _write_lsm if config.timeline_layout.has_lsm_history else _write_v6
    archive_file, written = write(storage, config, entries)
    fault("after_archive_written")
    deleted = _delete_states(storage, config, entries, State.REQUESTED)
    deleted += _delete_states(storage, config, entries, State.INFLIGHT)
    fault("after_pending_deleted")
    for index, entry in enumerate(entries):
        deleted += _delete_states(storage, config, [entry], State.COMPLETED)
        if index == 0:
            fault("after_first_completed_deleted")
    for entry in entries:
        storage.delete_dir(f"{MARKERS_DIR}/{entry.timestamp}")
    return ArchiveOutcome(archive_file, written, tuple(deleted))
