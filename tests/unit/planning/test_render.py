"""Rendering plans: the summary line, text for the terminal, markdown for a pull request, and
JSON identical to the stored plan.json."""

from __future__ import annotations

from pathlib import Path

from maintainer.plan.artifact import PLAN_FILE, plan_id_of, write_plan
from maintainer.plan.model import Action, DropMetadataTable, NodePlan, Plan
from maintainer.planning.render import (
    render,
    render_json,
    render_markdown,
    render_text,
    summary_line,
)
from tests.support.plans import NO_FINGERPRINT, blocked, clean_effect, delete_file, node, plan, table_plan


def clean_node(table: str, files: int, drop_mdt: bool = False) -> NodePlan:
    actions: list[Action] = [delete_file(f"p{i % 2}/f{i:03d}.parquet", 1024) for i in range(files)]
    if drop_mdt:
        actions.insert(0, DropMetadataTable(reason="metadata_table: drop", partitions=("files",)))
    return node(
        table,
        "clean",
        tuple(actions),
        reasons=("policy KEEP_LATEST_COMMITS", "earliest commit to retain: 3"),
        effect=clean_effect(files, 1024 * files),
        payloads=(f"{table}.clean.requested",) if files else (),
    )


def sample() -> Plan:
    trips = table_plan(
        "trips",
        (
            blocked("trips", "rollback", "rollback is not supported yet"),
            clean_node("trips", 12, drop_mdt=True),
        ),
        path="/lake/trips",
    )
    quiet = table_plan(
        "quiet", (clean_node("quiet", 0),), path="/lake/quiet", table_type="MERGE_ON_READ", version=8
    )
    broken = table_plan(
        "broken",
        (blocked("broken", "clean", "not a Hudi table"), blocked("broken", "archive", "not a Hudi table")),
        path="/lake/broken",
        table_type="unknown",
        version=0,
        fingerprint=NO_FINGERPRINT,
    )
    return plan(broken, quiet, trips)


def test_summary_counts_what_changes_and_what_is_blocked() -> None:
    assert summary_line(sample()) == (
        "Plan: 12 files to delete (12.0 KiB), 1 metadata table to drop in 1 table; "
        "3 nodes blocked, 1 with nothing to do."
    )


def test_summary_without_changes() -> None:
    quiet = plan(table_plan("q", (clean_node("q", 0),)))
    assert summary_line(quiet) == "No changes. 0 nodes blocked, 1 with nothing to do."


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
    escaped = plan(table_plan("t", (blocked("t", "clean", "a | b <c>"),)))
    assert "blocked: a \\| b &lt;c&gt;" in render_markdown(escaped, "0" * 64)


def test_json_is_the_stored_plan_json(tmp_path: Path) -> None:
    made = sample()
    payloads = {"trips.clean.requested": b"avro"}
    plan_id = write_plan(tmp_path, made, payloads, "", {})
    assert plan_id == plan_id_of(made)
    assert render_json(made, plan_id, payloads) == (tmp_path / PLAN_FILE).read_text()
    assert render(made, plan_id, payloads, "json") == render_json(made, plan_id, payloads)
    assert render(made, plan_id, payloads, "markdown") == render_markdown(made, plan_id)
    assert render(made, plan_id, payloads, "text") == render_text(made, plan_id)
