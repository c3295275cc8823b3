"""Rendering plans: the summary line, text for the terminal, markdown for a pull request, and
JSON identical to the stored plan.json."""

from __future__ import annotations

from pathlib import Path

from maintainer.artifact.directory import PLAN_FILE, plan_id_of, write_plan
from maintainer.artifact.model import (
    Action,
    DropMetadataTable,
    NodePlan,
    Plan,
    RollbackAction,
    RollbackEffect,
)
from maintainer.catalog import ChangeKind
from maintainer.planning.changes import SpecChange
from maintainer.planning.markdown import COMMENT_LIMIT
from maintainer.planning.review_context import Provenance, ReviewContext
from maintainer.planning.terminal import (
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
    assert "[risk: ⚠ drops the metadata table; deletes 12 files (12.0 KiB)]" in text
    assert "- earliest commit to retain: 3" in text
    assert "drop_metadata_table .hoodie/metadata: metadata_table: drop" in text
    assert "delete p0/f000.parquet (1.0 KiB): older than the ECTR" in text
    assert "... and 9 more (all listed in plan.json)" in text  # the first few files, by default
    assert "quiet: nothing to do (clean)" in text  # an idle table is one line
    assert "every node blocked (clean, archive): not a Hudi table" in text
    assert "risk: trips.clean ⚠ drops the metadata table: metadata table (files)" in text
    assert text.rstrip().endswith(summary_line(sample()))


def test_text_is_plain_text_never_html_escaped() -> None:
    escaped = plan(table_plan("t", (blocked("t", "clean", "log files 1.0 KiB >= threshold <0 B>"),)))
    text = render_text(escaped, "0" * 64)
    assert "blocked: log files 1.0 KiB >= threshold <0 B>" in text
    assert "&gt;" not in text and "&lt;" not in text


def test_markdown_for_a_pull_request_comment() -> None:
    md = render_markdown(sample(), "cd" * 32)
    assert md.startswith("## maintainer plan `cdcdcdcdcdcd`")
    assert f"**{summary_line(sample())}**" in md
    assert "| project / target | `proj` / `dev` |" in md
    assert (
        "> [!CAUTION]" in md and "> - `trips.clean` ⚠ drops the metadata table: metadata table (files)" in md
    )
    assert (
        "| `trips` | 12 (12.0 KiB) |  | 1 metadata table to drop · 1 blocked | ⚠ drops the metadata table |"
        in md
    )
    assert "- `trips.rollback`: rollback is not supported yet" in md
    assert "- `broken (every node)`: not a Hudi table" in md
    assert "**Nothing to do** in 1 table: `quiet`." in md
    summary = "<summary><code>trips</code>: 12 files to delete (12.0 KiB), 1 metadata table to drop</summary>"
    assert f"<details>{summary}" in md
    assert "| `p0` | 6 | 6.0 KiB |" in md
    assert "First 10 of 12 files (all in plan.json):" in md


def test_markdown_escapes_table_breaking_text() -> None:
    escaped = plan(table_plan("t", (blocked("t", "clean", "a | b <c>"),)))
    assert "a \\| b \\<c\\>" in render_markdown(escaped, "0" * 64)


def test_markdown_names_where_the_plan_comes_from_and_a_partial_selection() -> None:
    made = Provenance(
        made_at="2026-11-26 10:00:00 UTC",
        maintainer_version="0.1.0",
        git_commit="0123456789abcdef0123",
        git_branch="main",
        git_dirty=True,
        select=("tag:nightly", "trips"),
        tables_selected=2,
        tables_in_project=40,
    )
    md = render_markdown(sample(), "cd" * 32, ReviewContext(made))
    assert "| made | 2026-11-26 10:00:00 UTC by maintainer 0.1.0 |" in md
    assert "| from commit | `0123456789ab (main), with uncommitted changes` |" in md
    assert "| selection | **partial**: --select tag:nightly trips: 2 of 40 tables |" in md
    text = render_text(sample(), "cd" * 32, ReviewContext(made))
    assert "made 2026-11-26 10:00:00 UTC by maintainer 0.1.0 from commit 0123456789ab (main)" in text


def test_markdown_lists_manifest_changes_by_kind() -> None:
    changes = (
        SpecChange(
            "trips", "clean.commits_retained", 10, 5, ChangeKind.DESTRUCTIVE, "less retention (commits)"
        ),
        SpecChange(
            "trips", "tags", ["a"], ["a", "b"], ChangeKind.METADATA, "does not change what is deleted"
        ),
        SpecChange("orders", "compaction.strategy.name", "a", "b", ChangeKind.REWRITE, "compaction settings"),
    )
    review = ReviewContext(None, "the last applied plan abcdefabcdef", changes)
    md = render_markdown(sample(), "cd" * 32, review)
    section = md.split("### What changed in the manifests since the last applied plan abcdefabcdef")[1]
    assert (
        section.index("clean.commits_retained")
        < section.index("compaction.strategy.name")
        < section.index("tags")
    )
    assert (
        "| (not known) | `clean.commits_retained`: 10 → 5 | 1 table (`trips`) "
        "| **destructive**: less retention (commits) |"
    ) in md
    assert "1 destructive, 1 rewrite, 1 metadata-only (maintenance changes for 2 tables: " in md
    text = render_text(sample(), "cd" * 32, review)
    assert "destructive   clean.commits_retained: 10 -> 5: 1 table (trips) (less retention (commits))" in text


def lake(tables: int, files_per_table: int) -> Plan:
    """A lake: every tenth table deletes files in 20 partitions, the others are idle."""
    planned = []
    for index in range(tables):
        name = f"warehouse_table_{index:04d}"
        files = files_per_table if index % 10 == 0 else 0
        actions: tuple[Action, ...] = tuple(
            delete_file(
                f"event_date=2026-01-{i % 20 + 1:02d}/{name}-{i:06d}_0-1-0_20260101000000000.parquet", 4096
            )
            for i in range(files)
        )
        cleaned = node(name, "clean", actions, reasons=("policy KEEP_LATEST_COMMITS",),
                       effect=clean_effect(files, 4096 * files))  # fmt: skip
        archived = node(
            name, "archive", reasons=("20 completed commits, not more than keep_max_commits (30)",)
        )
        planned.append(table_plan(name, (cleaned, archived), path=f"s3://bucket/lake/{name}"))
    return plan(*planned)


def test_a_lake_of_1000_tables_and_100000_deletions_fits_a_pull_request_comment() -> None:
    md = render_markdown(lake(1000, 1000), "ef" * 32)
    assert len(md) < COMMENT_LIMIT, len(md)
    assert "Plan: 100,000 files to delete (390.6 MiB) in 100 tables" in md
    assert "### Tables with changes (100)" in md
    assert "**Nothing to do** in 900 tables: `warehouse_table_0001`" in md and "and 850 more." in md
    assert "Details of " in md and "`maintainer show` prints them, plan.json has everything." in md
    assert md.count("<details>") == md.count("</details>") > 0


def test_many_tables_with_changes_are_summed_past_the_rows_shown() -> None:
    md = render_markdown(lake(3000, 10), "ef" * 32)
    assert len(md) < COMMENT_LIMIT, len(md)
    assert "| ... 200 more tables | 2,000 (7.8 MiB) | 0 slices | all in plan.json |\n" in md  # no risk column


def test_json_is_the_stored_plan_json(tmp_path: Path) -> None:
    made = sample()
    payloads = {"trips.clean.requested": b"avro"}
    plan_id = write_plan(tmp_path, made, payloads, "", {})
    assert plan_id == plan_id_of(made)
    assert render_json(made, plan_id, payloads) == (tmp_path / PLAN_FILE).read_text()
    assert render(made, plan_id, payloads, "json") == render_json(made, plan_id, payloads)
    assert render(made, plan_id, payloads, "markdown") == render_markdown(made, plan_id)
    review = ReviewContext(Provenance(made_at="now", tables_selected=3, tables_in_project=3))
    assert render(made, plan_id, payloads, "markdown", review) == render_markdown(made, plan_id, review)
    assert render(made, plan_id, payloads, "text") == render_text(made, plan_id)


def rollback_node(table: str, files: int, size: int) -> NodePlan:
    paths = tuple(f"p0/f{i}.parquet" for i in range(files))
    action = RollbackAction(
        kind="rollback", target="20260101000000000", reason="failed write", action="commit",
        state="INFLIGHT", source="markers", delete_files=paths, rollback_blocks_for=(),
        rollback_instant=None, delete_bytes=size,
    )  # fmt: skip
    effect = RollbackEffect(
        rollbacks=(action.target,), files=files, rollback_blocks=0, left_alone=(), bytes=size
    )
    return node(table, "rollback", (action,), effect=effect)


def test_the_files_a_rollback_deletes_are_counted_with_it_in_every_view() -> None:
    rolled = plan(table_plan("t", (rollback_node("t", 8, 8 * 1024), clean_node("t", 68))))
    told = "1 failed write to roll back (8 files to delete, 8.0 KiB)"
    assert (
        summary_line(rolled)
        == f"Plan: 68 files to delete (68.0 KiB), {told} in 1 table; 0 nodes blocked, 0 with nothing to do."
    )
    assert f"t.rollback: {told}" in render_text(rolled, "0" * 64)
    assert render_markdown(rolled, "0" * 64).count(told) == 4  # summary, row, details summary, node


def fleet_review(cow: int = 200, mor: int = 100, sources: bool = True) -> ReviewContext:
    """A retention cut in one folder's _defaults.yml (destructive) and a compaction change in
    another's (rewrite), as compare_specs gives them."""
    cut = [
        SpecChange(f"cow_{i:03d}", "clean.commits_retained", 4, 3, ChangeKind.DESTRUCTIVE,
                   "less retention (commits)", "tables/cow/_defaults.yml:2" if sources else f"t{i}.yml:4")
        for i in range(cow)
    ]  # fmt: skip
    rewrite = [
        SpecChange(f"mor_{i:03d}", "compaction.trigger.max_delta_commits", 5, 9, ChangeKind.REWRITE,
                   "compaction settings", "tables/mor/_defaults.yml:3")
        for i in range(mor)
    ]  # fmt: skip
    return ReviewContext(None, "the last applied plan abcdefabcdef", (*cut, *rewrite))


def test_manifest_changes_that_alter_maintenance_are_never_no_changes() -> None:
    quiet = plan(table_plan("q", (clean_node("q", 0),)))
    review = fleet_review()
    maintenance = review.maintenance_line()
    assert maintenance == "maintenance changes for 300 tables: 200 destructive, 100 rewrite"
    assert summary_line(quiet, maintenance=maintenance) == (
        "No files to change now; maintenance changes for 300 tables: 200 destructive, 100 rewrite. "
        "0 nodes blocked, 1 with nothing to do."
    )
    assert summary_line(sample(), maintenance=maintenance).endswith(
        "; 3 nodes blocked, 1 with nothing to do. Also maintenance changes for 300 tables: "
        "200 destructive, 100 rewrite."
    )
    held = plan(table_plan("b", (blocked("b", "clean", "not a Hudi table"),)))
    assert summary_line(held, maintenance=maintenance).startswith("No changes can be made: ")
    tags = SpecChange("q", "tags", [], ["x"], ChangeKind.METADATA, "does not change what is deleted")
    assert ReviewContext(None, "x", (tags,)).maintenance_line() is None  # metadata-only: no change


def test_every_change_group_is_shown_and_300_tables_fit_a_pull_request_comment() -> None:
    review = fleet_review()
    md = render_markdown(lake(300, 50), "ef" * 32, review)
    assert len(md) < COMMENT_LIMIT, len(md)
    assert md.startswith("## maintainer plan `efefefefefef`\n\n**Plan: 1,500 files to delete")
    assert "Also maintenance changes for 300 tables: 200 destructive, 100 rewrite.**" in md
    assert (
        "| `tables/cow/_defaults.yml:2` | `clean.commits_retained`: 4 → 3 | 200 tables "
        "(`cow_000` … `cow_199`) | **destructive**: less retention (commits) |"
    ) in md
    assert (
        "| `tables/mor/_defaults.yml:3` | `compaction.trigger.max_delta_commits`: 5 → 9 | 100 tables "
        "(`mor_000` … `mor_099`) | rewrite: compaction settings |"
    ) in md
    scattered = render_markdown(lake(300, 50), "ef" * 32, fleet_review(sources=False))
    assert len(scattered) < COMMENT_LIMIT, len(scattered)  # one line per table: groups capped
    assert "| ... | 141 more changes, in 240 tables (plan_meta.json has them all) | | |" in scattered


def test_text_summarises_a_large_plan_and_verbose_prints_everything() -> None:
    fleet, review = lake(300, 50), fleet_review()
    brief = render_text(fleet, "ef" * 32, review)
    full = render_text(fleet, "ef" * 32, review, verbose=True)
    assert "destructive   tables/cow/_defaults.yml:2 clean.commits_retained: 4 -> 3: 200 tables " in brief
    assert "(cow_000 … cow_199) (less retention (commits))" in brief
    assert "10 more tables with changes or blocked nodes, one line each" in brief  # 30 changed, 20 in full
    assert "  warehouse_table_0290: clean 50 files to delete (200.0 KiB)" in brief
    assert "... and 47 more (all listed in plan.json)" in brief
    assert brief.rstrip().endswith("Also maintenance changes for 300 tables: 200 destructive, 100 rewrite.")
    assert "cow_000, cow_001, cow_002" in full and "more tables with changes" not in full
    assert full.count(" - delete ") == 1_500
    assert brief.count(" - delete ") == 20 * (3 + 1)  # 3 files and "... and 47 more" in 20 tables
    assert len(brief) < len(full) / 5, (len(brief), len(full))
