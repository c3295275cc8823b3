"""An inflight compaction (a crashed attempt) is rolled back with a real ``rollback`` instant
before it runs again, as Hudi's ``rollbackInflightCompaction`` does, on generated MOR tables of
versions 6 and 8: the rollback plan and metadata decode with Hudi's schemas, name the
compaction and list exactly the partial base files; hudi reads the rows of before the
compaction; a crash inside that rollback is finished by the next run with the same rollback
instant; the compaction then completes."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastavro
import pytest

from maintainer.executors.common.rollback_requests import absolute_path
from maintainer.executors.compaction.executor import rollback_inflight, run_compaction
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import CompactionPlan
from maintainer.hudi.table.state import open_table
from maintainer.services.compaction.model import CompactionPlanResult
from maintainer.services.compaction.payload import build_compaction_plan
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.integration.services.test_compaction_apply import apply, generated, planned, spec_for
from tests.integration.services.test_compaction_run import (
    FILE_NAME,
    check_commit,
    check_compacted,
    datagen_table,
    drop_mdt,
    plan,
    reads,
)
from tests.support import fixtures as fx
from tests.support import oracle

VERSIONS = [6, 8]
FIXTURES_WITH_COMPACTION = [
    "sample_table_mor_parquet_v6_nonpartitioned_rollback",
    "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
    "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle",
]
ROLLBACK_POINTS = ["rollback_after_requested", "rollback_after_inflight", "rollback_after_deletes"]


class Crashed:
    """A MOR table whose compaction crashed at ``point``: by default after writing its first
    base file (the generated tables have four operations)."""

    def __init__(self, path: Path, monkeypatch: pytest.MonkeyPatch, point: str = "after_operation") -> None:
        self.path = path
        self.before = reads(self.path)
        table, result = plan(self.path)
        assert result.operations, result.reasons
        self.result: CompactionPlanResult = result
        self.instant_time = result.instant_time
        self.plan: CompactionPlan = build_compaction_plan(result.operations, "crash-plan")
        self.storage, self.config = table.storage, table.snapshot.config
        monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
        with pytest.raises(InjectedFault):
            run_compaction(self.storage, self.config, self.instant_time, self.plan)
        monkeypatch.delenv(FAULT_ENV)
        written = self.path.rglob(f"*_{self.instant_time}.parquet")
        self.partial = sorted(str(p.relative_to(self.path)) for p in written)
        expected = 1 if point == "after_operation" else len(result.operations)
        assert len(self.partial) == expected, "the crash left new base files"

    @classmethod
    def generated(cls, tmp_path: Path, version: int, monkeypatch: pytest.MonkeyPatch) -> Crashed:
        table = cls(datagen_table(tmp_path, version, commits=4, rows_per_commit=100), monkeypatch)
        assert len(table.result.operations) > 1
        return table

    def run(self) -> Any:
        return run_compaction(self.storage, self.config, self.instant_time)

    def compaction_state(self) -> State:
        entry = open_table(str(self.path)).snapshot.timeline.entry(self.instant_time, Action.COMPACTION)
        assert entry is not None
        return entry.instant.state

    def rollbacks(self) -> list[Instant]:
        return open_table(str(self.path)).snapshot.timeline.of_action(Action.ROLLBACK)

    def read(self, instant: Instant, state: State, schema: str) -> dict[str, Any]:
        timeline = open_table(str(self.path)).snapshot.timeline
        data = (self.path / timeline.file_path(instant, state)).read_bytes()
        record = next(fastavro.reader(io.BytesIO(data), reader_schema=hudi_reader_schema(schema)))
        assert isinstance(record, dict)
        return record

    def check_rollback(self, rollback: Instant) -> None:
        """The completed rollback undoes the compaction's partial file, as Hudi records it."""
        assert rollback.is_completed
        target = {"commitTime": self.instant_time, "action": "compaction"}
        requested = self.read(rollback, State.REQUESTED, "HoodieRollbackPlan")
        assert requested["instantToRollback"] == target
        planned = [f for r in requested["RollbackRequests"] for f in r["filesToBeDeleted"]]
        table_uri = self.storage.uri("")
        assert planned == [absolute_path(table_uri, p) for p in self.partial]
        timeline = open_table(str(self.path)).snapshot.timeline
        assert (self.path / timeline.file_path(rollback, State.INFLIGHT)).read_bytes() == b""
        metadata = self.read(rollback, State.COMPLETED, "HoodieRollbackMetadata")
        assert metadata["startRollbackTime"] == rollback.timestamp
        assert metadata["commitsRollback"] == [self.instant_time]
        assert metadata["instantsRollback"] == [target]
        partitions = metadata["partitionMetadata"].values()
        assert sorted(f for p in partitions for f in p["successDeleteFiles"]) == planned
        assert all(not p["failedDeleteFiles"] and not p.get("rollbackLogFiles") for p in partitions)
        assert metadata["totalFilesDeleted"] == len(self.partial)

    def check_rolled_back(self) -> None:
        """The partial files are gone and hudi reads the rows of before the compaction."""
        assert not any((self.path / p).exists() for p in self.partial)
        assert not (self.path / ".hoodie/.temp" / self.instant_time).exists(), "markers left behind"
        assert oracle.snapshot_rows(self.path, drop=[FILE_NAME]) == self.before["snapshot"]

    def check_completed(self, outcome: Any) -> None:
        check_compacted(self.path, self.before, self.result)
        check_commit(self.path, outcome, "crash-plan")


@pytest.mark.parametrize("version", VERSIONS)
def test_rollback_of_the_crashed_attempt_is_a_rollback_instant(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Crashed.generated(tmp_path, version, monkeypatch)
    assert table.compaction_state() is State.INFLIGHT
    rolled_back = rollback_inflight(
        table.storage,
        table.config,
        Instant(table.instant_time, Action.COMPACTION, State.INFLIGHT),
        table.plan,
    )
    assert rolled_back is not None and list(rolled_back.deleted) == table.partial
    (rollback,) = table.rollbacks()
    assert rollback.timestamp == rolled_back.rollback_instant > table.instant_time
    table.check_rollback(rollback)
    table.check_rolled_back()
    assert table.compaction_state() is State.REQUESTED, "the compaction goes back to requested"
    outcome = table.run()
    assert outcome.rollback_instant is None and outcome.rolled_back_files == ()
    table.check_completed(outcome)


@pytest.mark.parametrize("version", VERSIONS)
def test_next_run_rolls_back_then_completes(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Crashed.generated(tmp_path, version, monkeypatch)
    outcome = table.run()
    (rollback,) = table.rollbacks()
    assert outcome.rollback_instant == rollback.timestamp
    assert list(outcome.rolled_back_files) == table.partial
    table.check_rollback(rollback)
    table.check_completed(outcome)
    # the compacted base file has the partial file's name again (same write token), and is kept
    assert all((table.path / p).exists() for p in table.partial)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("point", ROLLBACK_POINTS)
def test_crash_inside_the_rollback_is_finished_with_the_same_rollback_instant(
    point: str, version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = Crashed.generated(tmp_path, version, monkeypatch)
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    with pytest.raises(InjectedFault):
        table.run()
    monkeypatch.delenv(FAULT_ENV)
    (pending,) = table.rollbacks()
    assert not pending.is_completed and table.compaction_state() is State.INFLIGHT
    assert oracle.snapshot_rows(table.path, drop=[FILE_NAME]) == table.before["snapshot"]
    outcome = table.run()
    (rollback,) = table.rollbacks()
    assert rollback.timestamp == pending.timestamp == outcome.rollback_instant
    assert list(outcome.rolled_back_files) == table.partial
    table.check_rollback(rollback)
    table.check_completed(outcome)


@pytest.mark.parametrize("version", VERSIONS)
def test_crash_after_the_rollback_completed_rolls_back_again(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compaction is still inflight: as in Hudi, a second rollback is made (its files are
    already gone), then the compaction runs."""
    table = Crashed.generated(tmp_path, version, monkeypatch)
    monkeypatch.setenv(FAULT_ENV, "compaction:rollback_after_completed")
    with pytest.raises(InjectedFault):
        table.run()
    monkeypatch.delenv(FAULT_ENV)
    (first,) = table.rollbacks()
    table.check_rollback(first)
    assert table.compaction_state() is State.INFLIGHT
    assert oracle.snapshot_rows(table.path, drop=[FILE_NAME]) == table.before["snapshot"]
    outcome = table.run()
    first_again, second = table.rollbacks()
    assert first_again == first and outcome.rollback_instant == second.timestamp > first.timestamp
    assert second.is_completed
    metadata = table.read(second, State.COMPLETED, "HoodieRollbackMetadata")
    assert metadata["commitsRollback"] == [table.instant_time]
    table.check_completed(outcome)


@pytest.mark.parametrize("version", VERSIONS)
def test_pending_rollback_of_a_requested_compaction_is_finished_before_it_runs(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finished later, the rollback would delete the new base files (same names): it goes first."""
    table = Crashed.generated(tmp_path, version, monkeypatch)
    monkeypatch.setenv(FAULT_ENV, "compaction:rollback_after_deletes")
    with pytest.raises(InjectedFault):
        table.run()
    monkeypatch.delenv(FAULT_ENV)
    (pending,) = table.rollbacks()
    writer = TimelineWriter(table.storage, table.config)
    writer.revert_inflight_to_requested(Instant(table.instant_time, Action.COMPACTION, State.INFLIGHT))
    outcome = table.run()
    (rollback,) = table.rollbacks()
    assert rollback.timestamp == pending.timestamp == outcome.rollback_instant and rollback.is_completed
    table.check_completed(outcome)
    assert all((table.path / p).exists() for p in table.partial)


def test_apply_reports_the_rollback_of_its_interrupted_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, version=8)
    spec = spec_for(path)
    node, blobs = planned(path, spec)
    monkeypatch.setenv(FAULT_ENV, "compaction:after_operation")
    with pytest.raises(InjectedFault):
        apply(path, spec, node, blobs)
    monkeypatch.delenv(FAULT_ENV)
    outcome = apply(path, spec, node, blobs)
    (rollback,) = open_table(str(path)).snapshot.timeline.of_action(Action.ROLLBACK)
    assert outcome.effects.rollbacks == (rollback.timestamp,)
    (partial,) = outcome.effects.rolled_back_files
    assert partial in outcome.effects.files_written  # rewritten under the same name
    assert f"rollback {rollback.timestamp}, 1 partial file(s) deleted" in outcome.message


@pytest.mark.fixtures
@pytest.mark.parametrize("name", FIXTURES_WITH_COMPACTION)
def test_hudi_tables_crashed_compaction_is_rolled_back_then_completes(
    name: str, fixture_copy: Callable[[str], fx.FixtureTable], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real Hudi tables (one with Hudi's own rollback instant already, versions 6, 8 and 9)."""
    path = fixture_copy(name).path
    drop_mdt(path)
    table = Crashed(path, monkeypatch, "before_commit")
    existing = table.rollbacks()
    outcome = table.run()
    *kept, rollback = table.rollbacks()
    assert kept == existing and outcome.rollback_instant == rollback.timestamp
    assert list(outcome.rolled_back_files) == table.partial
    table.check_rollback(rollback)
    table.check_completed(outcome)
