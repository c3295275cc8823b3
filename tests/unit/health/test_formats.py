"""``maintainer status``'s outputs: OpenMetrics parsed as Prometheus parses it, Markdown that
cannot be broken by a table's name, JSON valid against its schema."""

from __future__ import annotations

import json

import jsonschema
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.parser import text_string_to_metric_families as prometheus_families

from maintainer.health.formats import METRICS, duration, table_metrics, to_json, to_markdown, to_openmetrics
from maintainer.health.records import (
    STATUS_SCHEMA_VERSION,
    FleetHealth,
    LastRun,
    LogBacklog,
    MetadataFigures,
    Objective,
    PendingInstant,
    ScorePart,
    SmallFiles,
    TableHealth,
    TimelineFigures,
    Versions,
    WhyNot,
)
from maintainer.health.status_schema import status_schema


def readable(name: str, owner: str | None, tags: tuple[str, ...]) -> TableHealth:
    return TableHealth(
        table=name,
        path=f"/lake/{name}",
        owner=owner,
        tags=tags,
        table_type="MERGE_ON_READ",
        version=8,
        error=None,
        score=70.0,
        score_parts=(
            ScorePart(
                name="log_backlog", points=10.0, max_points=20.0, value=15.0, limit=10.0, declared=True
            ),
        ),
        objectives=(
            Objective(name="max_log_files_per_slice", limit=10.0, value=15.0, unit="count", state="overdue"),
        ),
        last_runs=(LastRun(service="clean", instant="20260101000000000", age_seconds=90000),),
        pending=(
            PendingInstant(
                instant="20260101000000000",
                action="compaction",
                state="REQUESTED",
                age_seconds=200000,
                stuck=True,
            ),
        ),
        log_backlog=LogBacklog(
            slices=3,
            slices_with_logs=2,
            log_files=17,
            log_bytes=4096,
            max_log_files_per_slice=15,
            p50_log_files_per_slice=2.0,
            max_log_bytes_per_slice=4000,
            p50_log_bytes_per_slice=96.0,
            slices_over_limit=1,
            read_amplification=0.25,
        ),
        small_files=SmallFiles(
            limit_bytes=104857600, base_files=3, small_files=3, small_bytes=3000, share=1.0
        ),
        versions=Versions(
            retained_versions=2, retained_bytes=500, clean_would_free_bytes=500, clean_would_delete_files=2
        ),
        timeline=TimelineFigures(
            active_instants=12,
            keep_max_commits=30,
            oldest_active_instant="20250101000000000",
            oldest_active_age_seconds=10**7,
        ),
        metadata_table=MetadataFigures(
            partitions=("files",), deltacommits_since_compaction=4, last_compaction=None, in_sync=True
        ),
        why_not=(
            WhyNot(
                service="compaction",
                status="blocked",
                reason="blocked by pending compaction 20260101000000000",
            ),
        ),
    )


def unreadable(name: str) -> TableHealth:
    return TableHealth(
        table=name,
        path="/lake/gone",
        owner=None,
        tags=(),
        table_type="unknown",
        version=0,
        error="table gone (/lake/gone) cannot be read: no .hoodie",
        score=0.0,
        score_parts=(),
        objectives=(),
        last_runs=(),
        pending=(),
        log_backlog=None,
        small_files=None,
        versions=None,
        timeline=None,
        metadata_table=None,
        why_not=(WhyNot(service="clean", status="blocked", reason="cannot be read"),),
    )


FLEET = FleetHealth(
    maintainer_schema_version=STATUS_SCHEMA_VERSION,
    project="lake",
    target="prod",
    generated_at="2026-11-28T00:00:00+00:00",
    tables=(
        unreadable("gone"),
        readable('odd"name', "team \\ a", ("core", "pii")),
        readable("trips", None, ()),
    ),
)


def test_openmetrics_parses_with_one_sample_per_table_per_applicable_figure() -> None:
    text = to_openmetrics(FLEET)
    families = {f.name: f for f in text_string_to_metric_families(text)}  # type: ignore[no-untyped-call]
    assert set(families) == {name for name, _, _ in METRICS}
    for name, family in families.items():
        expected = [t.table for t in FLEET.tables if table_metrics(t)[name] is not None]
        assert [s.labels["table"] for s in family.samples] == expected, name
    score = {s.labels["table"]: s.value for s in families["maintainer_table_health_score"].samples}
    assert score == {"gone": 0.0, 'odd"name': 70.0, "trips": 70.0}
    labels = families["maintainer_table_log_files"].samples[0].labels
    assert labels == {"table": 'odd"name', "owner": "team \\ a", "tags": "core,pii"}
    unread = {s.labels["table"]: s.value for s in families["maintainer_table_unreadable"].samples}
    assert unread == {"gone": 1.0, 'odd"name': 0.0, "trips": 0.0}
    # Prometheus' own text-format parser reads it too
    assert {f.name for f in prometheus_families(text)} >= {"maintainer_table_health_score"}


def test_markdown_lists_every_table_and_what_needs_attention() -> None:
    text = to_markdown(FLEET)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + len(FLEET.tables)
    assert all(row.count(" | ") == rows[0].count(" | ") for row in rows)  # a name cannot add a column
    assert "overdue: max\\_log\\_files\\_per\\_slice 15 \\> 10" in text
    assert "stuck: 20260101000000000.compaction (2d 7h)" in text
    assert "compaction: blocked, blocked by pending compaction 20260101000000000" in text
    assert "cannot be read: no .hoodie" in text


def test_json_is_valid_against_the_checked_in_schema() -> None:
    data = json.loads(to_json(FLEET))
    jsonschema.validate(data, status_schema())
    assert [t["table"] for t in data["tables"]] == ["gone", 'odd"name', "trips"]


def test_durations_read_as_people_write_them() -> None:
    assert [duration(v) for v in (None, 5, 65, 3600, 3700, 86400, 90000)] == [
        "-",
        "5s",
        "1m",
        "1h",
        "1h 1m",
        "1d",
        "1d 1h",
    ]


def test_the_checked_in_schema_is_the_generated_one() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.health.status_schema
    import STATUS_SCHEMA_FILE, status_schema; from maintainer.project.project_schema import
    schema_text; Path("schemas", STATUS_SCHEMA_FILE).write_text(schema_text(status_schema()))'"""
    from pathlib import Path

    from maintainer.health.status_schema import STATUS_SCHEMA_FILE
    from maintainer.project.project_schema import schema_text

    checked_in = Path(__file__).parents[3] / "schemas" / STATUS_SCHEMA_FILE
    assert checked_in.read_text() == schema_text(status_schema())
