"""Rendering plans: the summary line, text for the terminal, markdown for a pull request, and
JSON identical to the stored plan.json."""

from __future__ import annotations

from pathlib import Path

from maintainer.plan.artifact import PLAN_FILE, plan_id_of, write_plan
from maintainer.plan.model import NodePlan, NodeStatus, Plan, PlannedAction, TableFingerprint, TablePlan
from maintainer.plan.render import (
    human_bytes,
    render,
    render_json,
    render_markdown,
    render_text,
    summary_line,
)

FINGERPRINT = TableFingerprint(("1.commit.COMPLETED",), (), "0" * 64)


def delete(path: str, size: int) -> PlannedAction:
    partition = path.rsplit("/", 1)[0]
    return PlannedAction("delete_file", path, "older than the ECTR", {"size": size, "partition": partition})


def clean_node(table: str, files: int, drop_mdt: bool = False) -> NodePlan:
    actions = [delete(f"p{i % 2}/f{i:03d}.parquet", 1024) for i in range(files)]
    if drop_mdt:
        actions.insert(
            0, PlannedAction("drop_metadata_table", ".hoodie/metadata", "metadata_table: drop", {})
        )
    return NodePlan(
        table,
        "clean",
        NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=("policy KEEP_LATEST_COMMITS", "earliest commit to retain: 3"),
        actions=tuple(actions),
        effect={"files": files, "bytes": 1024 * files},
        payloads=(f"{table}.clean.requested",) if files else (),
    )


def blocked(table: str, service: str, reason: str) -> NodePlan:
    return NodePlan(table, service, NodeStatus.BLOCKED, reasons=(reason,))


def sample() -> Plan:
    trips = TablePlan(
        "trips",
        "/lake/trips",
        "COPY_ON_WRITE",
        6,
        FINGERPRINT,
        (
            blocked("trips", "rollback", "rollback is not supported yet"),
            clean_node("trips", 12, drop_mdt=True),
        ),
    )
    quiet = TablePlan("quiet", "/lake/quiet", "MERGE_ON_READ", 8, FINGERPRINT, (clean_node("quiet", 0),))
    broken = TablePlan(
        "broken",
        "/lake/broken",
        "unknown",
        0,
        TableFingerprint((), (), ""),
        (blocked("broken", "clean", "not a Hudi table"), blocked("broken", "archive", "not a Hudi table")),
    )
    return Plan("proj", "dev", (broken, quiet, trips))


def test_human_bytes() -> None:
    assert human_bytes(0) == "0 B"
    assert human_bytes(1023) == "1023 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(5 * 1024**3) == "5.0 GiB"


def test_summary_counts_what_changes_and_what_is_blocked() -> None:
    assert summary_line(sample()) == (
        "Plan: 12 files to delete (12.0 KiB), 1 metadata table to drop in 1 table; "
        "3 nodes blocked, 1 with nothing to do."
    )


def test_summary_without_changes() -> None:
    plan = Plan(
        "proj", "dev", (TablePlan("q", "/q", "COPY_ON_WRITE", 6, FINGERPRINT, (clean_node("q", 0),)),)
    )
    assert summary_line(plan) == "No changes. 0 nodes blocked, 1 with nothing to do."


def test_text_shows_each_node_its_reasons_and_a_few_files() -> None:
    text = render_text(sample(), "ab" * 32)
    assert text.startswith("plan abababababab (project proj, target dev)")
    assert "trips (COPY_ON_WRITE, table version 6) /lake/trips" in text
    assert "trips.clean: 12 files to delete (12.0 KiB), 1 metadata table to drop" in text
    assert "- earliest commit to retain: 3" in text
    assert "drop_metadata_table .hoodie/metadata: metadata_table: drop" in text
    assert "delete p0/f000.parquet (1.0 KiB): older than the ECTR" in text
    assert "... and 2 more (all listed in plan.json)" in text
    assert "quiet.clean: nothing to do" in text
    assert "every node blocked (clean, archive): not a Hudi table" in text
    assert text.rstrip().endswith(summary_line(sample()))


def test_markdown_for_a_pull_request_comment() -> None:
    md = render_markdown(sample(), "cd" * 32)
    assert md.startswith("## maintainer plan `cdcdcdcdcdcd`")
    assert f"**{summary_line(sample())}**" in md
    assert "| `trips.rollback` | **blocked** | blocked: rollback is not supported yet |" in md
    assert "| `trips.clean` | changes | 12 files to delete (12.0 KiB), 1 metadata table to drop |" in md
    assert "| `p0` | 6 | 6.0 KiB |" in md
    assert "Every node is **blocked**: not a Hudi table" in md
    assert "<details><summary>files to delete</summary>" in md


def test_markdown_escapes_table_breaking_text() -> None:
    node = blocked("t", "clean", "a | b <c>")
    plan = Plan("p", "d", (TablePlan("t", "/t", "COPY_ON_WRITE", 6, FINGERPRINT, (node,)),))
    assert "blocked: a \\| b &lt;c&gt;" in render_markdown(plan, "0" * 64)


def test_json_is_the_stored_plan_json(tmp_path: Path) -> None:
    plan = sample()
    payloads = {"trips.clean.requested": b"avro"}
    plan_id = write_plan(tmp_path, plan, payloads, "", {})
    assert plan_id == plan_id_of(plan)
    assert render_json(plan, plan_id, payloads) == (tmp_path / PLAN_FILE).read_text()
    assert render(plan, plan_id, payloads, "json") == render_json(plan, plan_id, payloads)
    assert render(plan, plan_id, payloads, "markdown") == render_markdown(plan, plan_id)
    assert render(plan, plan_id, payloads, "text") == render_text(plan, plan_id)
