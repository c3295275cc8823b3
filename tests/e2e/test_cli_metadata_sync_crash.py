"""A crash at each step of a node that keeps the metadata table in sync (the points between
the metadata and the data completion included): the table stays readable, and the next apply
of the same plan finishes the node with the metadata table in step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.faults import FAULT_ENV
from tests.support import oracle
from tests.support.fixtures import FixtureTable
from tests.support.metadata_tables import (
    FILE_NAME,
    MOR_V9,
    MOR_WITH_LOGS,
    Project,
    assert_metadata_in_step,
    fail_last_deltacommit,
    only,
    without_metadata_table,
)

pytestmark = pytest.mark.fixtures

CRASHES = [
    *(
        ("rollback", p)
        for p in ("after_requested", "after_deletes", "after_metadata_table", "after_completed")
    ),
    *(("clean", p) for p in ("after_inflight", "after_deletes", "after_metadata_table")),
    *(("compaction", p) for p in ("after_inflight", "before_commit", "after_metadata_table")),
]


@pytest.mark.parametrize(("service", "point"), CRASHES)
def test_a_crash_during_a_synced_node_is_recovered_by_the_next_apply(
    service: str,
    point: str,
    project: Callable[[Path, str], Path],
    fixture_copy: Callable[[str], FixtureTable],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = fixture_copy(MOR_WITH_LOGS[1] if service == "compaction" else MOR_V9).path
    failed = fail_last_deltacommit(path) if service == "rollback" else None
    reference = without_metadata_table(path, tmp_path)
    expected = oracle.snapshot_rows(reference, drop=FILE_NAME)
    maintained = Project(project(path, only(service)), path)
    assert maintained.cli("plan") == 0
    monkeypatch.setenv(FAULT_ENV, f"{service}:{point}")
    assert maintained.cli("apply") == 1
    assert f"{service}:{point}" in maintained.results()[f"t.{service}"]["message"]
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == expected  # readable mid-way

    monkeypatch.delenv(FAULT_ENV)
    assert maintained.cli("apply") == 0, maintained.results()
    assert_metadata_in_step(path)
    assert oracle.snapshot_rows(path, drop=FILE_NAME) == expected
    assert oracle.file_slices(path) == oracle.file_slices(without_metadata_table(path, tmp_path))
    if failed is not None:
        assert not list((path / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob(f"{failed}*"))
