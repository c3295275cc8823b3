"""Issue 31, the retry gap, at the executor: on a table whose metadata table is kept in sync,
the rollback of a failed compaction attempt also rolls back that attempt's metadata
deltacommit, with the rollback's instant time, right before the rollback completes (Hudi's
``BaseRollbackActionExecutor.finishRollback`` -> ``writeTableMetadata``); without the sync it
does not touch the metadata table. And the metadata check accepts what Hudi itself lists for
a compaction that failed again after its metadata write: its files, on storage, while it is
pending; not once they are gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.compaction.executor import rollback_inflight, run_compaction
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.metadata.check import MetadataCheck, check_metadata_table
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.payloads import CompactionPlan
from maintainer.hudi.table.state import open_table
from maintainer.services.compaction.payload import build_compaction_plan
from tests.integration.services.test_compaction_run import FILE_NAME, plan
from tests.support import oracle

METADATA = Path(".hoodie") / "metadata"


def _synced_table(tmp_path: Path) -> Path:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=20, seed=31)
    generate(str(path), DatagenSpec("t", "mor", 8, workload, metadata_table=True))
    return path


def _failed_compaction(path: Path, monkeypatch: pytest.MonkeyPatch, point: str) -> tuple[str, CompactionPlan]:
    """Schedule and run a compaction that fails at ``point``; (its instant, its plan)."""
    table, result = plan(path)
    assert result.operations, result.reasons
    payload = build_compaction_plan(result.operations, "retry-gap")
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    with pytest.raises(InjectedFault):
        run_compaction(table.storage, table.snapshot.config, result.instant_time, payload, sync_metadata=True)
    monkeypatch.delenv(FAULT_ENV)
    return result.instant_time, payload


def _metadata_timeline(path: Path) -> list[str]:
    return sorted(p.name for p in (path / METADATA / ".hoodie" / "timeline").iterdir() if p.is_file())


def _check(path: Path) -> MetadataCheck:
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    return check_metadata_table(table, mdt)


@pytest.mark.parametrize("sync", [True, False])
def test_the_rollback_of_a_failed_attempt_rolls_back_its_metadata_deltacommit_when_synced(
    sync: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _synced_table(tmp_path)
    instant_time, payload = _failed_compaction(path, monkeypatch, "after_metadata_table")
    assert [n for n in _metadata_timeline(path) if n.startswith(instant_time)]
    logs = sorted(p.name for p in (path / METADATA).rglob(f"*_{instant_time}.log.*"))
    assert logs, "the failed attempt wrote its metadata deltacommit"
    table = open_table(str(path))
    inflight = Instant(instant_time, Action.COMPACTION, State.INFLIGHT)
    config = table.snapshot.config
    rolled_back = rollback_inflight(table.storage, config, inflight, payload, sync_metadata=sync)
    assert rolled_back is not None and len(rolled_back.deleted) == 2
    names = _metadata_timeline(path)
    if not sync:  # the metadata table is left alone: it still holds the attempt's deltacommit
        assert [n for n in names if n.startswith(instant_time)]
        assert not _check(path).passed  # which lists the files the rollback deleted
        return
    assert not [n for n in names if n.startswith(instant_time)]
    assert not list((path / METADATA).rglob(f"*_{instant_time}.log.*"))
    # the metadata rollback has the data rollback's instant time, and completed
    rollbacks = [n for n in names if ".rollback" in n]
    assert [n.split(".")[0] for n in rollbacks][:2] == [rolled_back.rollback_instant] * 2
    assert any(n.startswith(f"{rolled_back.rollback_instant}_") for n in rollbacks)
    check = _check(path)
    assert check.passed, check.problems()


def _failed_twice(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Failed after its metadata write, rolled back (with its metadata deltacommit), failed
    again after its metadata write: the completed rollback makes the deltacommit valid, so the
    metadata table lists the pending compaction's files, as Hudi's does (its readers skip them
    until the compaction completes). Returns the compaction's instant."""
    instant_time, _ = _failed_compaction(path, monkeypatch, "after_metadata_table")
    _fails_again(path, instant_time, "after_metadata_table", monkeypatch)
    return instant_time


def _fails_again(path: Path, instant_time: str, point: str, monkeypatch: pytest.MonkeyPatch) -> None:
    table = open_table(str(path))
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    with pytest.raises(InjectedFault):
        run_compaction(table.storage, table.snapshot.config, instant_time, sync_metadata=True)
    monkeypatch.delenv(FAULT_ENV)


def test_the_check_accepts_a_pending_compactions_listed_files_only_while_on_storage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _synced_table(tmp_path)
    before = oracle.snapshot_rows(path, drop=[FILE_NAME])
    instant_time = _failed_twice(path, monkeypatch)
    check = _check(path)
    assert check.passed, check.problems()
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before

    victim = sorted(path.rglob(f"*_{instant_time}.parquet"))[0]
    victim.unlink()
    problems = _check(path).problems()
    assert len(problems) == 1 and f"{victim.name}: listed by the metadata table" in problems[0]
    assert "but not on storage" in problems[0]


def test_the_check_accepts_them_gone_while_their_rollback_is_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The third attempt's rollback deleted them and failed before rolling back the metadata
    deltacommit (Hudi's order: deletes, metadata rollback, completion): pending, not stale."""
    path = _synced_table(tmp_path)
    before = oracle.snapshot_rows(path, drop=[FILE_NAME])
    instant_time = _failed_twice(path, monkeypatch)
    _fails_again(path, instant_time, "rollback_after_deletes", monkeypatch)
    assert not list(path.rglob(f"*_{instant_time}.parquet"))
    check = _check(path)
    assert check.passed, check.problems()
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before

    table = open_table(str(path))
    outcome = run_compaction(table.storage, table.snapshot.config, instant_time, sync_metadata=True)
    assert outcome.instant.is_completed
    check = _check(path)
    assert check.passed, check.problems()
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before
