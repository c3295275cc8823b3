"""Issue 31 item 4: every instant maintainer has pending keeps a heartbeat, as Hudi's writers
do (``HoodieHeartbeatClient``), so a Hudi writer cleaning failed writes lazily
(``hoodie.cleaner.policy.failed.writes=LAZY``) does not take it for abandoned and roll it back;
the heartbeat goes when the instant completes, and a crash leaves one that expires."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.heartbeat import HEARTBEAT_DIR
from tests.support.metadata_tables import Project, assert_metadata_in_step, only

FRESH_S = 60.0
"""hoodie.client.heartbeat.interval_in_ms: a heartbeat younger than one interval is fresh."""


def _compaction_project(write: Callable[[Path, str], Path], tmp_path: Path) -> Project:
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=10, seed=31)
    generate(str(table), DatagenSpec("t", "mor", 8, workload, metadata_table=True))
    maintained = Project(write(table, only("compaction")), table)
    profiles = maintained.root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    assert maintained.cli("plan") == 0
    return maintained


def _heartbeats(table: Path) -> dict[str, float]:
    """Instant time -> age in seconds of each heartbeat file of the table."""
    folder = table / HEARTBEAT_DIR
    now = time.time()
    return {p.name: now - p.stat().st_mtime for p in folder.iterdir()} if folder.is_dir() else {}


def _compaction_time(table: Path) -> str:
    (requested,) = (table / ".hoodie" / "timeline").glob("*.compaction.requested")
    return requested.name.split(".")[0]


def test_a_pending_compaction_has_a_fresh_heartbeat_and_a_completed_one_none(
    bare_project: Callable[[Path, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HoodieHeartbeatClient.start / HeartbeatUtils.deleteHeartbeatFile: the compaction's
    heartbeat (``.hoodie/.heartbeat/<instant>``) is there and fresh while it is inflight, its
    completed metadata deltacommit has none left (``.hoodie/metadata/.hoodie/.heartbeat/``),
    and once the compaction completes no heartbeat is left in either table."""
    maintained = _compaction_project(bare_project, tmp_path)
    monkeypatch.setenv(FAULT_ENV, "compaction:after_metadata_table")
    assert maintained.cli("apply") == 1
    compaction = _compaction_time(maintained.table)
    beats = _heartbeats(maintained.table)
    assert list(beats) == [compaction]
    assert beats[compaction] < FRESH_S
    assert _heartbeats(maintained.table / ".hoodie" / "metadata") == {}

    monkeypatch.delenv(FAULT_ENV)
    assert maintained.cli("apply") == 0, maintained.results()
    assert _heartbeats(maintained.table) == {}
    assert _heartbeats(maintained.table / ".hoodie" / "metadata") == {}
    assert_metadata_in_step(maintained.table)
