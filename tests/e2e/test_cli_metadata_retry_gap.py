"""Issue 31, the retry gap: a compaction that failed after its metadata deltacommit completed
is retried, and the retry fails too. The retry's rollback of the failed attempt (a completed
``rollback`` makes the rolled-back instant valid to readers) must also roll back the
compaction's metadata deltacommit, as Hudi's ``BaseRollbackActionExecutor.finishRollback``
does; else the ``files`` partition lists the base files the rollback deleted.

The campaign: for every fault point of the compaction node, fail once, fail again at every
point on the retry, then succeed; ``inspect --check-metadata`` is clean after each step and
hudi reads the generated rows after each (``MAINTAINER_RETRY_CAMPAIGN=full``: the second retry
fails too, at every point, before the last apply succeeds)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from tests.support import oracle
from tests.support.metadata_tables import FILE_NAME, Project, assert_metadata_in_step, only

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
META += FILE_NAME
FIRST_FAULTS = ("after_inflight", "before_commit", "after_metadata_table")
"""The compaction's own fault points through the CLI, each leaving it inflight (its
``after_operation`` point is armed only with the executor's own in-process runner, which
apply does not use; ``before_commit`` leaves every new base file written)."""
RETRY_FAULTS = (
    *(f"rollback_{p}" for p in ("after_requested", "after_inflight", "after_deletes")),
    *(f"rollback_{p}" for p in ("after_metadata_table", "after_completed")),
    *FIRST_FAULTS,
)
"""Where the retry can fail: in the rollback of the failed attempt, then in the compaction."""
FULL = os.environ.get("MAINTAINER_RETRY_CAMPAIGN") == "full"


def _campaign() -> list[tuple[str, ...]]:
    """Every (first, retry) pair of fault points (24, about 30 s); with
    ``MAINTAINER_RETRY_CAMPAIGN=full`` the second retry fails too, at every point it reaches."""
    pairs: list[tuple[str, ...]] = list(itertools.product(FIRST_FAULTS, RETRY_FAULTS))
    if not FULL:
        return pairs
    return [(*pair, third) for pair in pairs for third in RETRY_FAULTS if _reached(pair[-1], third)]


def _reached(previous: str, point: str) -> bool:
    """Whether an apply after a failure at ``previous`` passes ``point``: a rollback left
    pending is finished with its own instant (not requested again; moved to inflight only if
    it was requested)."""
    left_pending = previous.startswith("rollback_") and previous != "rollback_after_completed"
    if left_pending and point == "rollback_after_requested":
        return False
    moved_to_inflight = previous != "rollback_after_requested"
    return not (left_pending and point == "rollback_after_inflight" and moved_to_inflight)


def _maintained(write: Callable[[Path, str], Path], tmp_path: Path) -> tuple[Project, GeneratedTable]:
    """A generated v8 merge-on-read table with a metadata table, a compaction-only project on
    the local engine (no JVM), planned."""
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=10, seed=31)
    generated = generate(str(table), DatagenSpec("t", "mor", 8, workload, metadata_table=True))
    maintained = Project(write(table, only("compaction")), table)
    profiles = maintained.root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    assert maintained.cli("plan") == 0
    assert maintained.nodes()["t.compaction"]["actions"][-1]["kind"] == "sync_metadata_table"
    return maintained, generated


def _fails_at(maintained: Project, point: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    assert maintained.cli("apply") == 1
    assert f"compaction:{point}" in maintained.results()["t.compaction"]["message"]
    monkeypatch.delenv(FAULT_ENV)


def _check_metadata(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(["inspect", str(path), "--check-metadata"])
    assert code == 0, capsys.readouterr().out


def test_a_failed_retry_of_a_failed_compaction_leaves_the_metadata_table_in_step(
    project: Callable[[Path, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The reproduction of issue 31 item 2: failed after the metadata write, then the retry
    fails right after the compaction went inflight again (its rollback of the first attempt
    completed). Old code: two "listed by the metadata table but not on storage" lines."""
    maintained, generated = _maintained(project, tmp_path)
    _fails_at(maintained, "after_metadata_table", monkeypatch)
    _check_metadata(maintained.table, capsys)
    _fails_at(maintained, "after_inflight", monkeypatch)
    _check_metadata(maintained.table, capsys)

    assert maintained.cli("apply") == 0, maintained.results()
    _check_metadata(maintained.table, capsys)
    assert_metadata_in_step(maintained.table)
    expected = oracle.rows_of(generated.expected[generated.completed[-1]])
    assert oracle.snapshot_rows(maintained.table, drop=META) == expected
    data_rollbacks = _rollbacks(maintained.table)
    assert len(data_rollbacks) == 2  # one per retry
    # the first retry's rollback found the failed attempt's metadata deltacommit and rolled it
    # back with its own instant time; the second found none left
    assert _rollbacks(maintained.table / ".hoodie" / "metadata") == data_rollbacks[:1]


def _rollbacks(table: Path) -> list[str]:
    """The instant times of the completed rollbacks on a table's timeline."""
    return sorted(p.name.split("_")[0] for p in (table / ".hoodie" / "timeline").glob("*_*.rollback"))


@pytest.mark.parametrize("faults", _campaign(), ids="-".join)
def test_a_compaction_failing_again_keeps_the_metadata_table_clean_at_every_step(
    faults: tuple[str, ...],
    project: Callable[[Path, str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    maintained, generated = _maintained(project, tmp_path)
    expected = oracle.rows_of(generated.expected[generated.completed[-1]])
    for point in faults:
        _fails_at(maintained, point, monkeypatch)
        _check_metadata(maintained.table, capsys)
        assert oracle.snapshot_rows(maintained.table, drop=META) == expected  # readable mid-way
    assert maintained.cli("apply") == 0, maintained.results()
    _check_metadata(maintained.table, capsys)
    assert_metadata_in_step(maintained.table)
    assert oracle.snapshot_rows(maintained.table, drop=META) == expected
