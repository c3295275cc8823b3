"""Manifest changes between two resolved specs, classified for the reviewer."""

from __future__ import annotations

from typing import Any

from maintainer.planning.changes import ChangeKind, compare_specs

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
