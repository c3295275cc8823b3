"""Archival of datagen tables: the active timeline keeps the right instants, every archived
record decodes (v6 archive log blocks with Hudi's schema; v8 LSM parquet), hudi reads the same
rows for every instant still active, and a crash mid-archival is recovered without losing or
duplicating an instant."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import fastavro
import pyarrow.parquet as pq
import pytest

from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.archive import v6_log
from maintainer.executors.archive.executor import run_archive
from maintainer.hudi import payloads
from maintainer.hudi.instants import archived
from maintainer.hudi.logformat import BlockType, HeaderKey, read_log_file
from maintainer.hudi.table.state import open_table
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.compaction.settings import CompactionSpec
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.support import oracle

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip

# Archival mechanics, not the compaction window: a trigger that does not count delta commits
# (Hudi applies the window guard to every MOR table whose trigger counts them).
NOT_COUNTING = CompactionSpec.model_validate({"trigger": {"strategy": "time_elapsed"}})


class Crash(Exception):
    pass


def make_table(path: Path, kind: str, version: int, commits: int) -> GeneratedTable:
    workload = WorkloadSpec(partitions=1, file_groups=2, commits=commits, rows_per_commit=6, delete_ratio=0.2)
    return generate(str(path), DatagenSpec("t", kind, version, workload))


def archive(path: Path, settings: ArchiveSpec, crash_at: str | None = None) -> list[str]:
    loaded = open_table(str(path))
    result = plan_archive(load_archive_inputs(loaded, NOT_COUNTING), settings)

    def fault(point: str) -> None:
        if point == crash_at:
            raise Crash(point)

    run_archive(loaded.storage, loaded.snapshot.config, result, fault=fault)
    return [i.timestamp for i in result.instants]


def v6_records(path: Path) -> list[dict[str, Any]]:
    """Every record of every archive file, decoded with Hudi's own HoodieArchivedMetaEntry schema."""
    storage = open_table(str(path)).storage
    reader_schema = hudi_reader_schema("HoodieArchivedMetaEntry")
    records: list[Any] = []
    for _, file in v6_log.archive_files(storage, ".hoodie/archived"):
        for block in read_log_file(storage, file):
            assert block.block_type is BlockType.AVRO_DATA and not block.is_corrupt
            assert set(block.header.as_dict()) == {HeaderKey.SCHEMA}
            writer = fastavro.parse_schema(json.loads(block.header[HeaderKey.SCHEMA]))
            content = io.BytesIO(block.content)
            version, count = int.from_bytes(content.read(4), "big"), int.from_bytes(content.read(4), "big")
            assert version == 3 and 0 < count <= 10
            for _ in range(count):
                content.read(4)
                records.append(fastavro.schemaless_reader(content, writer, reader_schema))
    return records


def v8_rows(path: Path) -> list[dict[str, Any]]:
    history = path / ".hoodie" / "timeline" / "history"
    version = int((history / "_version_").read_text())
    manifest = json.loads((history / f"manifest_{version}").read_text())
    rows = []
    for entry in manifest["files"]:
        assert (history / entry["fileName"]).stat().st_size == entry["fileLen"]
        rows += pq.read_table(history / entry["fileName"]).to_pylist()
    return rows


def assert_archived_exactly(path: Path, version: int, archived: list[str]) -> None:
    if version == 6:
        records = v6_records(path)
        keys = Counter((r["commitTime"], r["actionType"], r["actionState"]) for r in records)
        assert all(count == 1 for count in keys.values()), "an instant state was archived twice"
        assert sorted({r["commitTime"] for r in records}) == sorted(archived)
        for record in records:
            assert record["actionState"] in ("REQUESTED", "INFLIGHT", "COMPLETED")
            if record["actionState"] == "COMPLETED":
                assert record["hoodieCommitMetadata"]["partitionToWriteStats"], record["commitTime"]
        assert len(records) == 3 * len(archived)
    else:
        rows = v8_rows(path)
        assert sorted(r["instantTime"] for r in rows) == sorted(archived), "lost or duplicated"
        for row in rows:
            where = f"lsm:{row['instantTime']}"
            assert row["completionTime"] > row["instantTime"] and row["version"] == 1
            assert list(payloads.decode_commit_metadata(row["metadata"], where).write_stats())


def assert_hudi_reads(path: Path, table: GeneratedTable, active: list[str]) -> None:
    for instant in active:
        got = oracle.snapshot_rows(path, as_of=instant, drop=META)
        assert sorted(got, key=lambda r: r["uuid"]) == sorted(
            table.expected[instant], key=lambda r: r["uuid"]
        )
    latest = table.expected[table.completed[-1]]
    got = oracle.snapshot_rows(path, drop=META)
    assert sorted(got, key=lambda r: r["uuid"]) == sorted(latest, key=lambda r: r["uuid"])


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8)])
def test_archival_of_a_60_commit_table_with_keep_20_30(tmp_path: Path, kind: str, version: int) -> None:
    path = tmp_path / "t"
    table = make_table(path, kind, version, 60)
    archived = archive(path, ArchiveSpec(keep_min_commits=20, keep_max_commits=30))
    assert archived == list(table.completed[:40])
    active = [i.timestamp for i in open_table(str(path)).snapshot.timeline.completed_commits()]
    assert active == list(table.completed[40:])
    assert oracle.completed_commit_times(path) == active
    assert_archived_exactly(path, version, archived)
    assert_hudi_reads(path, table, active)
    assert archive(path, ArchiveSpec(keep_min_commits=20, keep_max_commits=30)) == [], (
        "a second run archives nothing"
    )


CRASH_POINTS = ["after_archive_written", "after_pending_deleted", "after_first_completed_deleted"]


@pytest.mark.parametrize("crash_at", CRASH_POINTS)
@pytest.mark.parametrize("version", [6, 8])
def test_a_crash_mid_archival_is_recovered_by_a_rerun(tmp_path: Path, version: int, crash_at: str) -> None:
    path = tmp_path / "t"
    table = make_table(path, "mor", version, 9)
    settings = ArchiveSpec(keep_min_commits=3, keep_max_commits=5)
    with pytest.raises(Crash):
        archive(path, settings, crash_at)
    archive(path, settings)
    expected = list(table.completed[:6])
    active = [i.timestamp for i in open_table(str(path)).snapshot.timeline.completed_commits()]
    assert active == list(table.completed[6:])
    assert_archived_exactly(path, version, expected)
    assert_hudi_reads(path, table, active)


def test_a_second_archival_adds_a_new_file_and_manifest_version(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "cow", 8, 12)
    storage = open_table(str(path)).storage
    directory = ".hoodie/timeline/history"
    assert archive(path, ArchiveSpec(keep_min_commits=3, keep_max_commits=5)) == list(table.completed[:9])
    assert archived.current_version(storage, directory) == 1
    assert archive(path, ArchiveSpec(keep_min_commits=1, keep_max_commits=2)) == list(table.completed[9:11])
    assert archived.current_version(storage, directory) == 2
    assert [f.name.endswith("_0.parquet") for f in archived.read_manifest(storage, directory, 2)] == [
        True,
        True,
    ]
    assert_archived_exactly(path, 8, list(table.completed[:11]))
    assert_hudi_reads(path, table, [table.completed[11]])
