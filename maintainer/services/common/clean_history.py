"""What the last completed clean promised to keep: its earliest commit to retain.

Archival must not pass it (the cleaner still needs those commits) and a savepoint cannot be
taken before it (their older file versions may be gone), so both services read it here.
"""

from __future__ import annotations

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import State
from maintainer.hudi.table.state import TableState


def last_clean_ectr(table: TableState) -> str | None:
    """The earliest commit to retain recorded by the table's last completed clean (None: no
    clean, or one that recorded none)."""
    timeline = table.snapshot.timeline
    clean = timeline.last_completed_clean()
    if clean is None:
        return None
    path = timeline.file_path(clean, State.COMPLETED)
    metadata = payloads.decode_clean_metadata(table.storage.read_bytes(path), table.storage.uri(path))
    return (metadata.earliest_commit_to_retain or None) if metadata else None
