"""Merge rules where the order of log entries and the base row matter, checked against hudi:
hand-written deltacommits on a generated table, then compaction must keep hudi's snapshot.

Hudi folds the log first and then combines the result with the base row, so a natural delete
followed by a record with a lower ordering value leaves the base row (the record loses to it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.layout import avro_schema
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.compaction.executor import run_compaction
from maintainer.hudi import logformat, payloads
from maintainer.hudi.config.properties import PROPERTIES_FILE, parse_java_properties
from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat import DeleteRecord, OrderingValue
from maintainer.hudi.parquet.basefile import with_meta_fields
from maintainer.hudi.payloads import CommitMetadata, WriteStat
from maintainer.hudi.records.reader import read_base_file
from maintainer.hudi.table.state import open_table
from maintainer.services.common.metadata_table import rewrite_properties
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.storage import Storage
from tests.support import oracle

Block = Callable[[str], bytes]


@dataclass
class HandWriter:
    """Deltacommits of hand-made log blocks on one file slice of a generated table."""

    storage: Storage
    version: int
    slice: FileSlice
    logs: list[str]

    def deltacommit(self, *blocks: Block) -> None:
        writer = TimelineWriter(self.storage, open_table(self.storage.base_uri).snapshot.config)
        requested = writer.create_requested(Action.DELTA_COMMIT)
        empty = CommitMetadata(partition_to_write_stats={}, extra_metadata={}, operation_type="UPSERT")
        inflight = writer.transition_to_inflight(requested, self.encode(empty) if self.version < 8 else b"")
        token = f"0-{len(self.logs) + 1}-{len(self.logs) + 1}"
        fid, base = self.slice.file_id, self.slice.base_instant
        if self.version < 8:
            log = logformat.next_log_file_v6(tuple(self.logs), fid, base, token)
        else:
            log = logformat.new_log_file_v8(fid, requested.timestamp, token)
        self.logs.append(log.name)
        path = f"{self.slice.partition}/{log.name}" if self.slice.partition else log.name
        data = b"".join(block(requested.timestamp) for block in blocks)
        self.storage.write_if_absent(path, data)
        stat = WriteStat(
            file_id=fid, path=path, prev_commit=base, partition_path=self.slice.partition, num_writes=1,
            file_size_in_bytes=len(data), total_write_bytes=len(data), log_version=log.version, log_offset=0,
            base_file=self.slice.base_file.name if self.slice.base_file else None, log_files=(log.name,),
        )  # fmt: skip
        metadata = CommitMetadata(
            partition_to_write_stats={self.slice.partition: (stat,)},
            extra_metadata={"schema": avro_schema("trips")},
            operation_type="UPSERT",
        )
        writer.complete(inflight, self.encode(metadata))

    def encode(self, metadata: CommitMetadata) -> bytes:
        return (
            payloads.encode_commit_metadata_json(metadata)
            if self.version < 8
            else payloads.encode_avro(metadata)
        )


def table_with_one_slice(tmp_path: Path, version: int) -> tuple[Path, HandWriter, dict[str, Any]]:
    path = tmp_path / f"edge_v{version}"
    generate(
        str(path), DatagenSpec("trips", "mor", version, WorkloadSpec(1, 1, commits=1, rows_per_commit=5))
    )
    table = open_table(str(path))
    (slice_,) = table.view.latest_slices()
    assert slice_.base_file is not None
    row = read_base_file(table.storage, slice_.base_file.path).to_pylist()[0]
    return path, HandWriter(table.storage, version, slice_, [f.name for f in slice_.log_files]), row


def delete(row: dict[str, Any], partition: str, ordering: int | None) -> Block:
    record = DeleteRecord(
        row["_hoodie_record_key"], partition, OrderingValue.infer(ordering) if ordering else None
    )
    return lambda instant: logformat.delete_block([record], instant, with_meta_fields(avro_schema("trips")))


def upsert(row: dict[str, Any], ts: int, rider: str) -> Block:
    def block(instant: str) -> bytes:
        record = {**row, "ts": ts, "rider": rider, "_hoodie_commit_time": instant,
                  "_hoodie_commit_seqno": f"{instant}_0_0"}  # fmt: skip
        return logformat.avro_data_block([record], with_meta_fields(avro_schema("trips")), instant)

    return block


def compact(path: Path) -> None:
    table = open_table(str(path))
    settings = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
    result = plan_compaction(inputs_of(table), settings, datetime.now(timezone.utc))
    plan = build_compaction_plan(result.operations, "edge")
    run_compaction(table.storage, table.snapshot.config, result.instant_time, plan)


def versions_of(path: Path, uuid: str) -> list[tuple[int, str]]:
    return [(r["ts"], r["rider"]) for r in oracle.snapshot_rows(path) if r["uuid"] == uuid]


@pytest.mark.parametrize("version", [6, 8])
@pytest.mark.parametrize(
    ("name", "steps"),
    [
        (
            "natural delete, then an older record",
            lambda r, p: [delete(r, p, None), upsert(r, r["ts"] - 10, "old")],
        ),
        ("ordered delete below the base", lambda r, p: [delete(r, p, r["ts"] - 5)]),
        ("ordered delete above the base", lambda r, p: [delete(r, p, r["ts"] + 5)]),
        (
            "older record, then a newer one",
            lambda r, p: [upsert(r, r["ts"] - 1, "a"), upsert(r, r["ts"] + 1, "b")],
        ),
        (
            "newer record, then an older one",
            lambda r, p: [upsert(r, r["ts"] + 2, "a"), upsert(r, r["ts"] + 1, "b")],
        ),
        (
            "natural delete, then a newer record",
            lambda r, p: [delete(r, p, None), upsert(r, r["ts"] + 1, "new")],
        ),
    ],
)
def test_compaction_keeps_what_hudi_reads(
    version: int, name: str, steps: Callable[[dict[str, Any], str], list[Block]], tmp_path: Path
) -> None:
    path, writer, row = table_with_one_slice(tmp_path, version)
    for block in steps(row, writer.slice.partition):
        writer.deltacommit(block)
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    read_before = versions_of(path, row["uuid"])
    compact(path)
    assert versions_of(path, row["uuid"]) == read_before, name
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before


@pytest.mark.parametrize("version", [6, 8])
def test_commit_time_ordering_takes_the_last_write(version: int, tmp_path: Path) -> None:
    path, writer, row = table_with_one_slice(tmp_path, version)
    raw = parse_java_properties((path / PROPERTIES_FILE).read_text("latin-1"))
    if version == 6:
        raw["hoodie.compaction.payload.class"] = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
    else:
        raw["hoodie.record.merge.mode"] = "COMMIT_TIME_ORDERING"
    rewrite_properties(writer.storage, raw, datetime.now(timezone.utc))
    for ts, rider in ((5, "a"), (1, "b"), (-3, "c")):
        writer.deltacommit(upsert(row, row["ts"] + ts, rider))
    assert versions_of(path, row["uuid"]) == [(row["ts"] - 3, "c")]
    compact(path)
    assert versions_of(path, row["uuid"]) == [(row["ts"] - 3, "c")]
