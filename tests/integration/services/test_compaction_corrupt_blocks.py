"""A deltacommit whose log file ends in a block cut short (a crashed append): hudi (hudi-rs)
skips the corrupt block when it reads the table, and so does compaction, which counts it in
the write stat; the rows read after compaction are those read before."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.errors import CorruptFileError
from maintainer.executors.compaction.executor import CompactionOutcome, run_compaction
from maintainer.hudi.records.reader import read_table
from maintainer.hudi.table.state import open_table
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from tests.integration.services.test_compaction_merge_oracle import (
    Block,
    table_with_one_slice,
    upsert,
    versions_of,
)
from tests.support import oracle


def cut_short(block: Block) -> Block:
    return lambda instant: block(instant)[:-40]


def compact(path: Path) -> CompactionOutcome:
    table = open_table(str(path))
    settings = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
    result = plan_compaction(inputs_of(table), settings, datetime.now(timezone.utc))
    plan = build_compaction_plan(result.operations, "corrupt")
    return run_compaction(table.storage, table.snapshot.config, result.instant_time, plan)


@pytest.mark.parametrize("version", [6, 8])
def test_compaction_skips_a_corrupt_block_as_hudi_reads_it(version: int, tmp_path: Path) -> None:
    path, writer, row = table_with_one_slice(tmp_path, version)
    writer.deltacommit(upsert(row, row["ts"] + 1, "kept"), cut_short(upsert(row, row["ts"] + 2, "lost")))
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    assert versions_of(path, row["uuid"]) == [(row["ts"] + 1, "kept")]
    with pytest.raises(CorruptFileError, match="corrupt log block"):
        read_table(open_table(str(path)))  # the library's reader stays strict
    (stat,) = compact(path).stats
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before
    assert (stat.total_corrupt_log_block, stat.total_log_blocks, stat.num_update_writes) == (1, 2, 1)
