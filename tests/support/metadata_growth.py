"""Grow a table's metadata table as a writer that commits often would: each added data-table
deltacommit (v8+ only) writes nothing but completes, and before it completes its metadata
deltacommit (same instant time) is written with the records Hudi writes for a commit with no
files (the ``__all_partitions__`` record, listing none), so the metadata table gains one
completed deltacommit per data commit and nothing else changes."""

from __future__ import annotations

from pathlib import Path

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.metadata.commit import commit_to_metadata_table
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.updates.commit import files_records
from maintainer.hudi.metadata.writer import MetadataUpdate
from maintainer.hudi.payloads import CommitMetadata
from maintainer.hudi.table.state import open_table


def _schema(path: Path) -> str:
    """The table schema the latest completed data commit records (readers take it from there)."""
    table = open_table(str(path), verify=False)
    timeline = table.snapshot.timeline
    for instant in reversed(timeline.completed_commits()):
        file = timeline.file_path(instant, State.COMPLETED)
        metadata = payloads.decode_commit_metadata(table.storage.read_bytes(file), file)
        schema = (metadata.extra_metadata or {}).get("schema")
        if schema:
            return schema
    raise AssertionError(f"no commit of {path} records a schema")


def add_empty_deltacommits(path: Path, count: int) -> list[str]:
    """Add ``count`` completed data deltacommits, each synced to the metadata table first."""
    table = open_table(str(path), verify=False)
    assert table.snapshot.config.timeline_layout.commit_metadata_is_avro, "v8+ tables only"
    writer = TimelineWriter(table.storage, table.snapshot.config)
    metadata = CommitMetadata(
        partition_to_write_stats={},
        compacted=False,
        extra_metadata={"schema": _schema(path)},
        version=1,
        operation_type="UPSERT",
    )
    times = []
    for _ in range(count):
        requested = writer.create_requested(Action.DELTA_COMMIT)
        inflight = writer.transition_to_inflight(requested, b"")
        time = inflight.timestamp

        def build(mdt: MetadataTable, time: str = time) -> MetadataUpdate:
            return MetadataUpdate(time, {FILES: files_records({})})

        assert commit_to_metadata_table(table.storage, time, build) is not None
        writer.complete(inflight, payloads.encode_avro(metadata))
        times.append(time)
    return times
