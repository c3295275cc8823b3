"""The codec of compacted base files on generated tables, checked against hudi (hudi-rs): a table
whose base files are snappy or zstd is compacted into snappy or zstd files with hudi's snapshot
unchanged; the manifest's compaction.parquet_compression reaches every slice's writer."""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.common.codec import slice_settings
from maintainer.executors.compaction import operation
from maintainer.executors.compaction.executor import IN_PROCESS, run_compaction
from maintainer.hudi.parquet import basefile
from maintainer.hudi.parquet.basefile import ParquetSettings, file_codec
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.base import NodeContext
from maintainer.services.compaction.apply import CompactionApply
from maintainer.services.compaction.effects import CompactionApplyEffects
from maintainer.services.compaction.node import compaction_payloads, plan_compaction_service
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import (
    CompactionSettings,
    CompactionSpec,
    CompactionStrategy,
    CompactionTrigger,
    StrategyName,
)
from tests.support import oracle
from tests.support.plans import NO_FINGERPRINT, table_plan

FILE_NAME = "_hoodie_file_name"
PLAN_ID = "c" * 64


def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codec: str, level: int | None) -> Path:
    """A MOR v8 table with updates, deletes and inserts in logs, its base files in ``codec``."""
    path = tmp_path / f"trips_{codec}"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=4, rows_per_commit=200, update_ratio=0.5,
                            delete_ratio=0.1)  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(basefile, "ParquetSettings", functools.partial(ParquetSettings, compression=codec,
                                                                     compression_level=level))  # fmt: skip
        generate(str(path), DatagenSpec("trips", "mor", 8, workload))
    return path


def codecs(path: Path, files: list[str]) -> set[str | None]:
    return {file_codec(pq.ParquetFile(path / f).metadata) for f in files}


@pytest.mark.parametrize(("codec", "level"), [("snappy", None), ("zstd", 3), ("gzip", 6)])
def test_compacted_files_keep_the_tables_codec_and_hudi_reads_the_same(
    codec: str, level: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, monkeypatch, codec, level)
    table = open_table(str(path))
    bases = [f"{s.partition}/{s.base_file.name}" for s in table.view.latest_slices() if s.base_file]
    assert bases and codecs(path, bases) == {codec}
    before = oracle.snapshot_rows(path, drop=[FILE_NAME])
    settings = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
    result = plan_compaction(inputs_of(table), settings, datetime.now(timezone.utc))
    payload = build_compaction_plan(result.operations, "codec-plan")
    outcome = run_compaction(table.storage, table.snapshot.config, result.instant_time, payload)
    written = [s.path or "" for s in outcome.stats]
    assert len(written) == len(result.operations) > 0
    assert codecs(path, written) == {codec}, "new base files keep the codec of the slice's base file"
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before
    snapshot = oracle.snapshot_rows(path)
    assert oracle.snapshot_rows(path, read_optimized=True) == snapshot


def test_manifest_codec_reaches_every_slice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = generated(tmp_path, monkeypatch, "gzip", 6)
    compaction = CompactionSpec(
        trigger=CompactionTrigger(max_delta_commits=1),
        strategy=CompactionStrategy(name="unbounded"),
        parquet_compression="gzip:2",
    )
    spec = TableSpec.of(
        name="trips", path=str(path), manifest="tables/trips.yml", line=1, compaction=compaction
    )
    table = open_table(str(path))
    node = plan_compaction_service(table, spec, datetime.now(timezone.utc))
    blobs = compaction_payloads(node, table.storage, PLAN_ID)
    plan = table_plan(
        "trips", (node,), path=str(path), table_type="MERGE_ON_READ", fingerprint=NO_FINGERPRINT
    )
    seen: list[tuple[str, int | None]] = []
    original = slice_settings

    def recording(configured: ParquetSettings, base_codec: str | None) -> Any:
        chosen = original(configured, base_codec)
        seen.append((chosen.compression, chosen.compression_level))
        return chosen

    monkeypatch.setattr(operation, "slice_settings", recording)
    before = oracle.snapshot_rows(path, drop=[FILE_NAME])
    outcome = CompactionApply(NodeContext(PLAN_ID, plan, node, spec, blobs, spark=None), IN_PROCESS).execute()
    assert isinstance(outcome.effects, CompactionApplyEffects)
    assert outcome.effects.slices_compacted == len(seen) > 0
    assert set(seen) == {("gzip", 2)}, "the manifest's level for the base files' own codec"
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before
