"""The rollback plan of a table service's failed attempt: its base files from markers, else by
listing; never a log file (v6 logs named with a pending compaction's instant are other writers');
nothing to do for a requested instant without a pending rollback."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from maintainer.executors.common.table_service_rollback import (
    planned_table_service_rollback,
    table_service_rollback_plan,
)
from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.rollback.model import RollbackInputs
from maintainer.services.rollback.planner import plan_rollback
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.storage import Storage

T = "20260101000000000"
OLD = "20251231000000000"
OWN_P1 = f"p1/f1-0_0-1-0_{T}.parquet"
OWN_P2 = f"p2/f3-0_1-1-1_{T}.parquet"
OTHER = f"p1/f2-0_0-1-0_{OLD}.parquet"
V6_LOG = f"p1/.f1-0_{T}.log.1_0-2-0"
COMPACTION = Instant(T, Action.COMPACTION, State.INFLIGHT)


def table(tmp_path: Path, *files: str) -> Storage:
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    return Storage(str(tmp_path))


def planned_files(storage: Storage, partitions: list[str]) -> tuple[list[str], str]:
    plan, source = table_service_rollback_plan(storage, COMPACTION, partitions)
    assert plan.instant_to_rollback is not None
    assert (plan.instant_to_rollback.commit_time, plan.instant_to_rollback.action) == (T, "compaction")
    return [f for r in plan.rollback_requests or () for f in r.files_to_be_deleted], source


def test_without_markers_the_base_files_of_the_instant_are_listed_never_logs(tmp_path: Path) -> None:
    storage = table(tmp_path, OWN_P1, OWN_P2, OTHER, V6_LOG)
    files, source = planned_files(storage, ["p1", "p2"])
    assert source == "listing"
    assert files == [f"{tmp_path}/{OWN_P1}", f"{tmp_path}/{OWN_P2}"]
    assert planned_files(storage, ["p2"])[0] == [f"{tmp_path}/{OWN_P2}"]


def test_markers_name_the_files_when_present(tmp_path: Path) -> None:
    markers = f".hoodie/.temp/{T}"
    storage = table(
        tmp_path,
        OWN_P1,
        OWN_P2,
        f"{markers}/p1/f1-0_0-1-0_{T}.parquet.marker.MERGE",
        f"{markers}/p1/.f1-0_{T}.log.1_0-2-0.marker.APPEND",
        f"{markers}/p1/f2-0_0-1-0_{OLD}.parquet.marker.CREATE",
    )
    files, source = planned_files(storage, ["p1", "p2"])
    assert (source, files) == ("markers", [f"{tmp_path}/{OWN_P1}"])


def test_a_requested_instant_without_pending_rollback_needs_nothing(tmp_path: Path) -> None:
    storage = table(tmp_path, OWN_P1)
    timeline = Timeline.from_file_names([f"{T}.compaction.requested"], layout=1)
    requested = COMPACTION.with_state(State.REQUESTED)
    assert planned_table_service_rollback(storage, timeline, requested, ["p1"]) is None
    inflight = Timeline.from_file_names([f"{T}.compaction.requested", f"{T}.compaction.inflight"], layout=1)
    planned = planned_table_service_rollback(storage, inflight, COMPACTION, ["p1"])
    assert planned is not None and planned.target == COMPACTION
    assert planned.rollback_instant is None and planned.reverts_to_requested


def test_the_rollback_service_leaves_an_inflight_compaction_to_the_compactor() -> None:
    """BaseHoodieTableServiceClient.getInstantsToRollback (failed writes) excludes compactions;
    only the compactor rolls its failed attempt back (BaseHoodieTableServiceClient.compact ->
    HoodieTable.rollbackInflightCompaction), which ``planned_table_service_rollback`` plans: its
    base files, never the v6 log file named with the compaction's instant (later writers')."""
    uri = "file:/data/t"
    tl = Timeline.from_file_names(
        [f"{OLD}.deltacommit", f"{T}.compaction.requested", f"{T}.compaction.inflight"], layout=1
    )
    own = BaseFile("p1", OWN_P1.split("/")[1], 100, "f1-0", T)
    later_log = LogFile("p1", V6_LOG.split("/")[1], 50, "f1-0", T, 1, "0-2-0")
    inputs = RollbackInputs(tl, table_version=6, is_mor=True, table_uri=uri, files=(own, later_log))
    now = datetime(2026, 1, 2, tzinfo=timezone.utc)
    result = plan_rollback(inputs, RollbackSpec(), now)
    assert not result.rollbacks
    assert [(s.instant.timestamp, s.instant.state) for s in result.skipped] == [(T, State.INFLIGHT)]
