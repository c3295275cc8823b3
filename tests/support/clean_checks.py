"""Checks shared by the clean-apply tests: the data files of a table, what hudi (the oracle)
reads now and as of every retained instant, and the clean instants decoded with Hudi's own
Avro schemas (as fastavro reader schemas: Avro schema resolution, as Java reads them)."""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import fastavro

from maintainer.hudi.file_groups.filenames import is_data_file_name
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.state import open_table
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.support import oracle


def data_files(table: Path | str) -> set[str]:
    """Every base and log file of the table, relative to its base path."""
    root = Path(table)
    found = set()
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".hoodie"]
        for name in files:
            if is_data_file_name(name):
                found.add(str((Path(directory) / name).relative_to(root)))
    return found


def reads(table: Path | str, from_instant: str | None) -> dict[str, list[dict[str, Any]]]:
    """hudi's snapshot, and its time travel to every completed commit at or after
    ``from_instant`` (the retained ones; all of them when None)."""
    result = {"snapshot": oracle.snapshot_rows(table)}
    for instant in oracle.completed_commit_times(table):
        if from_instant is None or instant >= from_instant:
            result[instant] = oracle.snapshot_rows(table, as_of=instant)
    return result


@dataclass(frozen=True)
class DecodedClean:
    instant_time: str
    plan: dict[str, Any]
    """The requested plan, read with Hudi's HoodieCleanerPlan schema."""
    inflight: bytes
    metadata: dict[str, Any] | None
    """The completed clean, read with Hudi's HoodieCleanMetadata schema (None when pending)."""
    plan_bytes: bytes


def _read_with(schema_name: str, data: bytes) -> dict[str, Any]:
    records = list(fastavro.reader(io.BytesIO(data), reader_schema=hudi_reader_schema(schema_name)))
    assert len(records) == 1, f"{schema_name}: one record per instant file"
    return cast(dict[str, Any], records[0])


def decoded_cleans(table: Path | str) -> list[DecodedClean]:
    """Every clean instant of the active timeline, decoded with Hudi's schemas."""
    loaded = open_table(str(table))
    timeline = loaded.snapshot.timeline
    cleans = []
    for instant in timeline.of_action(Action.CLEAN):
        entry = timeline.entry(instant.timestamp, instant.action)
        assert entry is not None
        read = loaded.storage.read_bytes
        plan_bytes = read(f"{timeline.directory}/{entry.state_files[State.REQUESTED]}")
        inflight_name = entry.state_files.get(State.INFLIGHT)
        inflight = read(f"{timeline.directory}/{inflight_name}") if inflight_name else b""
        completed = entry.state_files.get(State.COMPLETED)
        metadata = (
            _read_with("HoodieCleanMetadata", read(f"{timeline.directory}/{completed}"))
            if completed
            else None
        )
        cleans.append(
            DecodedClean(
                instant.timestamp, _read_with("HoodieCleanerPlan", plan_bytes), inflight, metadata, plan_bytes
            )
        )
    return cleans


def deleted_by(clean: DecodedClean) -> set[str]:
    """Table-relative paths of the files a completed clean says it deleted."""
    assert clean.metadata is not None
    return {
        f"{partition}/{name}" if partition else name
        for partition, stats in clean.metadata["partitionMetadata"].items()
        for name in stats["successDeleteFiles"]
    }
