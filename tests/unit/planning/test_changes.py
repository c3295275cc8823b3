"""Manifest changes between two resolved specs, classified for the reviewer."""

from __future__ import annotations

from typing import Any

from maintainer.catalog import ChangeKind
from maintainer.planning.changes import (
    SpecChange,
    compare_specs,
    group_changes,
    maintenance_changes,
    table_range,
)

BASE: dict[str, Any] = {
    "name": "t",
    "path": "/lake/t",
    "manifest": "tables/a.yml",
    "line": 3,
    "tags": ["core"],
    "clean": {"enabled": True, "policy": "keep_latest_commits", "commits_retained": 10, "hours_retained": 24},
    "archive": {"enabled": True, "keep_min_commits": 20, "keep_max_commits": 30},
    "compaction": {"enabled": True, "trigger": {"max_delta_commits": 5}},
    "rollback": {"enabled": True, "min_age": "1h"},
    "savepoints": {"enabled": True, "instants": ["20260101000000000", "20260102000000000"]},
    "gates": {"max_delete_files": 1000},
    "readers": [{"name": "finance", "lag": "6h"}],
    "metadata_table": None,
}


def changed(**edits: Any) -> dict[str, Any]:
    spec = {key: (dict(value) if isinstance(value, dict) else value) for key, value in BASE.items()}
    for dotted, value in edits.items():
        head, _, rest = dotted.partition("__")
        if rest:
            spec[head] = {**spec[head], rest: value}
        else:
            spec[head] = value
    return spec


def kinds(**edits: Any) -> dict[str, tuple[ChangeKind, str]]:
    return {c.option: (c.kind, c.why) for c in compare_specs({"t": BASE}, {"t": changed(**edits)})}


def test_less_retention_is_destructive_and_more_is_not() -> None:
    assert kinds(clean__commits_retained=5) == {
        "clean.commits_retained": (ChangeKind.DESTRUCTIVE, "less retention (commits)")
    }
    assert kinds(clean__commits_retained=20)["clean.commits_retained"][0] is ChangeKind.METADATA
    assert kinds(archive__keep_max_commits=25)["archive.keep_max_commits"][0] is ChangeKind.DESTRUCTIVE
    assert kinds(rollback__min_age="30m")["rollback.min_age"][0] is ChangeKind.DESTRUCTIVE
    assert kinds(rollback__min_age="2h")["rollback.min_age"][0] is ChangeKind.METADATA


def test_policies_services_savepoints_gates_and_readers() -> None:
    assert kinds(clean__policy="keep_latest_file_versions")["clean.policy"][0] is ChangeKind.DESTRUCTIVE
    assert kinds(clean__enabled=False)["clean.enabled"][0] is ChangeKind.METADATA
    removed = kinds(savepoints__instants=["20260102000000000"])["savepoints.instants"]
    assert removed == (ChangeKind.DESTRUCTIVE, "savepointed instants removed: 20260101000000000")
    assert kinds(gates__max_delete_files=5000)["gates.max_delete_files"][0] is ChangeKind.DESTRUCTIVE
    assert kinds(gates__max_delete_files=10)["gates.max_delete_files"][0] is ChangeKind.METADATA
    assert kinds(readers=[{"name": "finance", "lag": "1h"}])["readers"] == (
        ChangeKind.DESTRUCTIVE,
        "less protection for the readers finance",
    )
    assert (
        kinds(readers=[*BASE["readers"], {"name": "audit", "keep": "7d"}])["readers"][0]
        is ChangeKind.METADATA
    )
    assert kinds(metadata_table="drop")["metadata_table"][0] is ChangeKind.DESTRUCTIVE


def test_compaction_is_a_rewrite_and_tags_are_metadata_only() -> None:
    assert kinds(compaction__trigger={"max_delta_commits": 2}) == {
        "compaction.trigger.max_delta_commits": (ChangeKind.REWRITE, "compaction settings")
    }
    assert kinds(tags=["core", "pii"])["tags"][0] is ChangeKind.METADATA


def test_moving_a_table_to_another_file_is_no_change_and_tables_come_and_go() -> None:
    assert kinds(manifest="tables/b.yml", line=40) == {}
    changes = compare_specs({"t": BASE, "old": BASE}, {"t": BASE, "new": BASE})
    assert [(c.table, c.kind) for c in changes] == [
        ("new", ChangeKind.DESTRUCTIVE),
        ("old", ChangeKind.METADATA),
    ]


def specs(names: list[str], **edits: Any) -> dict[str, dict[str, Any]]:
    return {name: {**changed(**edits), "name": name} for name in names}


def test_each_change_names_the_line_that_made_it_and_a_removed_value_the_line_it_was_on() -> None:
    names = ["a", "b"]
    retained = {"clean.commits_retained": "tables/_defaults.yml:2:21"}
    old_sources = {n: {**retained, "gates.max_delete_files": "x.yml:9:5"} for n in names}
    new_sources = {n: {"clean.commits_retained": "tables/_defaults.yml:2:21"} for n in names}
    after = specs(names, clean__commits_retained=5, gates={})
    changes = compare_specs(specs(names), after, old_sources, new_sources)
    by_option = {(c.table, c.option): c.source for c in changes}
    assert by_option[("a", "clean.commits_retained")] == "tables/_defaults.yml:2"  # the line, no column
    assert by_option[("b", "gates.max_delete_files")] == "default (was x.yml:9)"
    added = group_changes(compare_specs({}, {"n": {**BASE, "name": "n"}, "m": {**BASE, "line": 9}}))
    assert [(g.source, g.option, g.tables) for g in added] == [("tables/a.yml", "(table)", ("m", "n"))]


def test_changes_are_grouped_by_source_line_option_and_values_most_severe_first() -> None:
    cow = [f"cow_{i:03d}" for i in range(200)]
    mor = [f"mor_{i:03d}" for i in range(100)]
    sources = {n: {"clean.commits_retained": "tables/cow/_defaults.yml:2:3"} for n in cow}
    sources |= {n: {"compaction.trigger.max_delta_commits": "tables/mor/_defaults.yml:3:7"} for n in mor}
    before = specs(cow + mor)
    after = specs(cow, clean__commits_retained=3) | specs(mor, compaction__trigger={"max_delta_commits": 9})
    after |= {n: {**after[n], "tags": ["core", "new"]} for n in cow[:5]}  # metadata-only, no source
    groups = group_changes(compare_specs(before, after, sources, sources))
    assert [(g.source, g.option, g.before, g.after, g.kind, len(g.tables)) for g in groups] == [
        ("tables/cow/_defaults.yml:2", "clean.commits_retained", 10, 3, ChangeKind.DESTRUCTIVE, 200),
        ("tables/mor/_defaults.yml:3", "compaction.trigger.max_delta_commits", 5, 9, ChangeKind.REWRITE, 100),
        (None, "tags", ["core"], ["core", "new"], ChangeKind.METADATA, 5),
    ]
    assert groups[0].tables == tuple(cow)
    assert table_range(groups[0].tables) == "cow_000 … cow_199"
    assert table_range(("a", "b")) == "a, b"


def test_maintenance_changes_count_tables_by_their_most_severe_kind_and_not_metadata() -> None:
    changes = compare_specs(
        {"a": BASE, "b": BASE, "c": BASE, "d": BASE},
        {
            "a": changed(clean__commits_retained=3, compaction={"enabled": False}),
            "b": changed(compaction={"enabled": True, "trigger": {"max_delta_commits": 2}}),
            "c": changed(tags=["other"], clean__commits_retained=20),
            "d": BASE,
        },
    )
    assert maintenance_changes(changes) == {ChangeKind.DESTRUCTIVE: 1, ChangeKind.REWRITE: 1}
    assert maintenance_changes([c for c in changes if c.table == "c"]) == {}


def test_a_change_keeps_its_source_through_plan_meta_json_and_older_entries_read_without_one() -> None:
    change = SpecChange("t", "clean.commits_retained", 4, 3, ChangeKind.DESTRUCTIVE, "less", "d.yml:2")
    assert SpecChange.from_json(change.to_json()) == change
    older = {k: v for k, v in change.to_json().items() if k != "source"}
    assert SpecChange.from_json(older).source is None
