"""A stale plan through the CLI: a writer started on the table after the plan was made. With
``--refuse-stale`` apply stops before anything starts (no Spark session, no lock, no write),
naming the table and the new instant (the default where $CI is set); elsewhere, or with
``--allow-drift``, it names them and goes on, each node re-checking the table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.clock import utc_now
from maintainer.hudi.instants.instant import format_instant_time
from tests.support.metadata_tables import Project, local_cow_project

SERVICES = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_file_versions, file_versions_retained: 1}"  # noqa: E501


def files_below(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def planned(project: Callable[[Path, str], Path], tmp_path: Path) -> Project:
    maintained = local_cow_project(project, tmp_path, SERVICES, commits=5, seed=17)
    assert maintained.cli("plan") == 0
    return maintained


def a_writer_starts(table: Path) -> str:
    """A Hudi writer requests a commit after the plan was made."""
    instant = format_instant_time(utc_now().replace(tzinfo=None))
    (table / ".hoodie" / "timeline" / f"{instant}.commit.requested").write_bytes(b"")
    return instant


def test_a_stale_plan_is_refused_before_anything_starts(
    planned: Project, sessions: list[object], capsys: pytest.CaptureFixture[str]
) -> None:
    instant = a_writer_starts(planned.table)
    before = files_below(planned.table)
    capsys.readouterr()
    assert planned.cli("apply", "--refuse-stale") == 1
    err = capsys.readouterr().err
    assert "is stale: 1 table(s) changed since it was planned" in err
    assert f"t: new or changed instants {instant} commit (requested)" in err, err
    assert "--allow-drift" in err
    assert sessions == []
    assert files_below(planned.table) == before  # no lock object, no ledger, nothing


def test_by_default_a_stale_plan_is_named_and_applied_with_drift_checks(
    planned: Project, sessions: list[object], capsys: pytest.CaptureFixture[str]
) -> None:
    instant = a_writer_starts(planned.table)
    capsys.readouterr()
    code = planned.cli("apply")
    err = capsys.readouterr().err
    assert f"the plan is stale for table t: new or changed instants {instant} commit (requested)" in err
    assert code in (0, 1, 2)  # each node re-derives its work: a pending write may hold the clean back
    assert sessions == []


def test_in_ci_a_stale_plan_is_refused_by_default_and_allow_drift_goes_on(
    planned: Project,
    sessions: list[object],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a_writer_starts(planned.table)
    before = files_below(planned.table)
    monkeypatch.setenv("CI", "true")
    capsys.readouterr()
    assert planned.cli("apply") == 1
    assert "is stale: 1 table(s) changed since it was planned" in capsys.readouterr().err
    assert files_below(planned.table) == before

    assert planned.cli("apply", "--allow-drift") in (0, 1)  # drift never fails the run with it
    assert "the plan is stale for table t" in capsys.readouterr().err
    assert sessions == []
