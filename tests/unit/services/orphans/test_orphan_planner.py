"""The orphan planner keeps what the metadata table lists: a Hudi reader lists files from its
``files`` partition, so a file there is no orphan to it, whatever the timeline says."""

from __future__ import annotations

from maintainer.hudi.table.orphans import OrphanFile, OrphanScan
from maintainer.services.orphans.planner import left_alone_reasons, plan_orphans
from maintainer.services.orphans.state import OrphanInputs

LISTED = OrphanFile("p/a-0_0-1-0_20260101000000000.parquet", 10, 900_000, "dangling", "r")
UNLISTED = OrphanFile("p/b-0_0-1-0_20260101000000000.parquet", 20, 900_000, "dangling", "r")
SCAN = OrphanScan((LISTED, UNLISTED), pending=1, archived=2, young=3)


def test_a_file_the_metadata_table_lists_is_kept_and_counted() -> None:
    result = plan_orphans(OrphanInputs(SCAN, frozenset({LISTED.path})))
    assert result.remove == (UNLISTED,) and result.bytes == 20
    assert (result.left_pending, result.left_archived, result.left_young, result.left_listed) == (1, 2, 3, 1)
    assert "1 file(s) left alone: the metadata table's files partition lists them" in left_alone_reasons(
        result, "1w"
    )


def test_without_a_metadata_table_every_orphan_is_removed() -> None:
    result = plan_orphans(OrphanInputs(SCAN, None))
    assert result.remove == (LISTED, UNLISTED) and result.left_listed == 0
