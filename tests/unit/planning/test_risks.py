"""Risk flags on what a plan changes."""

from __future__ import annotations

from maintainer.artifact.model import ArchiveInstant, DeleteSavepoint, DropMetadataTable, NodeStatus
from maintainer.planning.risks import RiskLevel, high_risks, node_risks
from tests.support.plans import clean_effect, delete_file, node


def test_dropping_a_metadata_table_with_its_record_index_is_high_risk() -> None:
    drop = DropMetadataTable(reason="metadata_table: drop", partitions=("files", "record_index"))
    cleaned = node("t", "clean", (drop, delete_file("p/a.parquet", 2048)),
                   effect=clean_effect(1, 2048, earliest_commit_to_retain="20260101000000000"))  # fmt: skip
    risks = node_risks(cleaned)
    assert [(r.level, r.flag) for r in risks] == [
        (RiskLevel.HIGH, "drops the metadata table"),
        (RiskLevel.DESTRUCTIVE, "deletes 1 file (2.0 KiB)"),
    ]
    assert "its record_index go too" in risks[0].detail
    assert risks[1].detail.endswith("time travel and incremental reads before 20260101000000000 end")
    assert [r.flag for r in high_risks([cleaned])] == ["drops the metadata table"]


def test_savepoints_deleted_and_instants_archived() -> None:
    dropped = node("t", "savepoint_delete", (DeleteSavepoint(target="20260101000000000", reason="unlisted"),))
    assert [(r.level, r.flag) for r in node_risks(dropped)] == [(RiskLevel.HIGH, "deletes 1 savepoint")]
    archived = node(
        "t", "archive", tuple(ArchiveInstant(target=f"2026010{i}000000000", reason="old", action="commit",
                                              state_files=()) for i in range(1, 4))
    )  # fmt: skip
    (risk,) = node_risks(archived)
    assert risk.flag == "archives 3 instants" and "up to 20260103000000000" in risk.detail


def test_idle_and_blocked_nodes_carry_no_flag() -> None:
    drop = DropMetadataTable(reason="metadata_table: drop", partitions=("files",))
    assert node_risks(node("t", "clean", (drop,), status=NodeStatus.BLOCKED)) == []
