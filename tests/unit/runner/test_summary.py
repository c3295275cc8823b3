"""The closing line and the effects a node's message must never hide."""

from __future__ import annotations

from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from maintainer.runner.summary import closing_line, told
from maintainer.services.base import Drift


def result(*nodes: NodeResult) -> RunResults:
    return RunResults("abc", "s", "f", nodes)


def node(name: str, status: NodeRunStatus = NodeRunStatus.SUCCESS, **effects: object) -> NodeResult:
    return NodeResult(name, status, effects=effects)


def test_the_closing_line_sums_the_effects_of_every_node() -> None:
    results = result(
        node("a.clean", files_deleted=1200, bytes_deleted=3 * 1024**3 + 100 * 1024**2),
        node("b.clean", files_deleted=4, bytes_deleted=0),
        node("a.compaction", slices_compacted=12, rollbacks=[]),
        node("a.rollback", rollbacks=["20260101000000000"], files_deleted=0),
        node("a.archive", instants_archived=["1", "2", "3"]),
    )
    assert closing_line(results) == (
        "Apply complete: 1,204 files deleted (3.1 GiB), 12 file slices compacted, 1 rollback, "
        "3 instants archived."
    )


def test_drift_failures_and_skips_are_named() -> None:
    drifted = NodeResult(
        "t.clean",
        NodeRunStatus.SUCCESS,
        effects={"files_deleted": 1},
        drift=(Drift("p/a.parquet", "kept: the file is savepointed"), Drift("p/b.parquet", "gone")),
    )
    failed = node("u.compaction", NodeRunStatus.ERROR)
    skipped = node("v.clean", NodeRunStatus.SKIPPED)
    assert closing_line(result(drifted, failed, skipped)) == (
        "Apply failed: 1 file deleted; 2 approved actions skipped as drift (t.clean: 2; reasons above); "
        "1 node failed (u.compaction); 1 node skipped."
    )


def test_nothing_done_says_so() -> None:
    assert closing_line(result(node("t.clean"))) == "Apply complete: no changes made."


def test_a_dropped_metadata_table_is_an_effect_never_nothing_to_do() -> None:
    effects: dict[str, object] = {"metadata_table_dropped": ["files", "record_index"]}
    assert told("nothing to do", effects) == "metadata table dropped (files, record_index)"
    assert (
        told("1 rollback(s) done", effects)
        == "metadata table dropped (files, record_index); 1 rollback(s) done"
    )
    assert told("3 files deleted", {}) == "3 files deleted"
    assert "1 metadata table dropped" in closing_line(
        result(NodeResult("t.rollback", NodeRunStatus.SUCCESS, effects=effects))
    )


def test_the_files_rollbacks_deleted_are_told_with_them_as_the_plan_tells_them() -> None:
    results = result(
        node("a.rollback", rollbacks=["20260101000000000"], files_deleted=8, bytes_deleted=8 * 1024),
        node("a.clean", files_deleted=68, bytes_deleted=68 * 1024),
    )
    assert closing_line(results) == (
        "Apply complete: 68 files deleted (68.0 KiB), 1 rollback (8 files deleted, 8.0 KiB)."
    )


def test_an_interrupted_apply_says_what_was_done_what_was_cancelled_and_how_to_resume() -> None:
    results = result(
        node("a.clean", files_deleted=12),
        node("a.archive", NodeRunStatus.CANCELLED),
        node("b.clean", NodeRunStatus.CANCELLED),
        node("b.archive", NodeRunStatus.CANCELLED),
    )
    assert closing_line(results, "maintainer apply target/plan") == (
        "Apply interrupted: 12 files deleted; 3 nodes cancelled (a.archive, b.clean, b.archive). "
        "Run `maintainer apply target/plan` again to resume: done nodes are skipped."
    )


def test_a_failure_during_an_interrupted_apply_is_still_the_head() -> None:
    line = closing_line(
        result(node("a.clean", NodeRunStatus.ERROR), node("b.clean", NodeRunStatus.CANCELLED))
    )
    assert line.startswith(
        "Apply failed: no changes made; 1 node failed (a.clean); 1 node cancelled (b.clean)."
    )
    assert line.endswith("Run `maintainer apply` again to resume: done nodes are skipped.")
