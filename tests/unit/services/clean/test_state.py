"""Loading what the clean planner needs from a table: settings, the last clean, the partitions
the window's commits wrote, the incremental scope and its listing."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import ReplaceCommitMetadata, encode_commit_metadata_json
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import (
    clean_settings,
    partitions_to_list,
    plan_clean_node,
    read_last_clean,
    written_partitions,
)
from maintainer.storage import Storage
from tests.integration.plan import cleantables as ct

NOW = datetime.now(timezone.utc)


def spec(path: str, **clean: object) -> TableSpec:
    return TableSpec.of(name="t", path=path, manifest="t.yml", line=1, clean=CleanSpec(**clean))  # type: ignore[arg-type]


def partitions_written_at(root: Path, instant: str) -> set[str]:
    return {
        str(Path(d).relative_to(root))
        for d, _, files in os.walk(root)
        for f in files
        if f.endswith(f"_{instant}.parquet")
    }


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    generated = ct.make_table(tmp_path_factory.mktemp("state"), "cow", 6, commits=12, partitions=12, rows=3)
    return Path(generated.path)


def test_clean_settings_map_every_option_of_the_manifest() -> None:
    settings = clean_settings(
        CleanSpec(
            policy="keep_latest_by_hours",
            commits_retained=4,
            file_versions_retained=2,
            hours_retained=6,
            incremental=False,
        )
    )
    assert settings == CleanSettings(CleanPolicy.KEEP_LATEST_BY_HOURS, 4, 2, 6, False)
    assert clean_settings(CleanSpec(file_versions_retained=5)).policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS


def test_no_last_clean_without_a_completed_clean(table: Path) -> None:
    storage = Storage(str(table))
    assert read_last_clean(storage, load_timeline(storage, load_config(storage))) is None


def test_last_clean_gives_its_ectr_and_recorded_savepoints(tmp_path: Path) -> None:
    root = Path(ct.make_table(tmp_path, "cow", 8, commits=4, partitions=2, rows=3).path)
    ectr = ct.completed_commits(root)[1]
    ct.write_completed_clean(str(root), ectr, savepointed="")
    storage = Storage(str(root))
    last = read_last_clean(storage, load_timeline(storage, load_config(storage)))
    assert last is not None
    assert last.earliest_commit_to_retain == ectr
    assert last.savepointed_timestamps == ()


def test_last_clean_without_savepoint_record_is_not_checked_for_deleted_savepoints(tmp_path: Path) -> None:
    root = Path(ct.make_table(tmp_path, "cow", 6, commits=3, partitions=2, rows=3).path)
    ct.write_completed_clean(str(root), ct.completed_commits(root)[0])
    storage = Storage(str(root))
    last = read_last_clean(storage, load_timeline(storage, load_config(storage)))
    assert last is not None and last.savepointed_timestamps is None


def test_written_partitions_come_from_each_commits_metadata(table: Path) -> None:
    storage = Storage(str(table))
    timeline = load_timeline(storage, load_config(storage))
    window = timeline.completed_commits()[3:6]
    written = written_partitions(storage, timeline, window)
    for instant in window:
        assert set(written[instant.timestamp]) == partitions_written_at(table, instant.timestamp)


def test_replacecommit_adds_the_partitions_of_the_file_groups_it_replaced(tmp_path: Path) -> None:
    root = ct.make_table(tmp_path, "cow", 6, commits=2, partitions=2, rows=3).path
    storage = Storage(root)
    writer = TimelineWriter(storage, load_config(storage))
    metadata = ReplaceCommitMetadata(
        partition_to_write_stats={},
        partition_to_replace_file_ids={"city=elsewhere": ("f1",)},
        operation_type="cluster",
    )
    requested = writer.create_requested(Action.REPLACE_COMMIT)
    writer.complete(writer.transition_to_inflight(requested), encode_commit_metadata_json(metadata))
    timeline = load_timeline(storage, load_config(storage))
    written = written_partitions(storage, timeline, [timeline.completed_commits()[-1]])
    assert written == {requested.timestamp: ["city=elsewhere"]}


def test_full_listing_without_an_earlier_clean(table: Path) -> None:
    storage = Storage(str(table))
    timeline = load_timeline(storage, load_config(storage))
    assert partitions_to_list(storage, timeline, CleanSpec(commits_retained=3), NOW, "UTC") is None


def test_incremental_listing_is_the_window_partitions(tmp_path: Path) -> None:
    root = Path(ct.make_table(tmp_path, "cow", 6, commits=12, partitions=12, rows=3).path)
    commits = ct.completed_commits(root)
    ct.write_completed_clean(str(root), commits[7], savepointed="")
    storage = Storage(str(root))
    timeline = load_timeline(storage, load_config(storage))
    listed = partitions_to_list(storage, timeline, CleanSpec(commits_retained=3), NOW, "UTC")
    window = commits[7:9]  # new ECTR = commits[9]
    assert listed is not None
    assert set(listed) == set().union(*(partitions_written_at(root, c) for c in window))
    assert len(listed) < 12


def test_deleted_savepoint_since_last_clean_forces_a_full_scan(tmp_path: Path) -> None:
    root = Path(ct.make_table(tmp_path, "cow", 6, commits=8, partitions=3, rows=3).path)
    commits = ct.completed_commits(root)
    ct.write_completed_clean(str(root), commits[2], savepointed=commits[1])
    result = plan_clean_node(open_table(str(root)), spec(str(root), commits_retained=3), NOW)
    assert result.scope.full
    assert "savepoint" in result.scope.reason


def test_plan_on_a_fully_listed_table_keeps_to_the_incremental_partitions(tmp_path: Path) -> None:
    root = Path(ct.make_table(tmp_path, "cow", 6, commits=12, partitions=12, rows=3).path)
    commits = ct.completed_commits(root)
    ct.write_completed_clean(str(root), commits[7], savepointed="")
    result = plan_clean_node(open_table(str(root)), spec(str(root), commits_retained=3), NOW)
    window_partitions = set().union(*(partitions_written_at(root, c) for c in commits[7:9]))
    assert not result.scope.full
    assert {f.partition for f in result.files} <= window_partitions
    expected = {p for p in ct.expected_cow_deletions(root, 3) if p.rsplit("/", 1)[0] in window_partitions}
    assert {f.path for f in result.files} == expected


def test_plan_lists_window_partitions_the_opened_table_lacks(tmp_path: Path) -> None:
    from maintainer.hudi.file_groups.fsview import build_view
    from maintainer.hudi.file_groups.view_inputs import load_view_inputs
    from maintainer.hudi.table.snapshot import load_snapshot
    from maintainer.hudi.table.state import TableState

    root = Path(ct.make_table(tmp_path, "cow", 6, commits=12, partitions=12, rows=3).path)
    commits = ct.completed_commits(root)
    ct.write_completed_clean(str(root), commits[7], savepointed="")
    storage = Storage(str(root))
    snapshot = load_snapshot(storage, [])
    partial = TableState(
        storage,
        snapshot,
        build_view(snapshot.timeline, snapshot.listings, load_view_inputs(storage, snapshot)),
    )
    full = plan_clean_node(open_table(str(root)), spec(str(root), commits_retained=3), NOW)
    assert plan_clean_node(partial, spec(str(root), commits_retained=3), NOW).files == full.files


def test_plan_on_listings_of_file_infos_matches_the_column_wise_listings(tmp_path: Path) -> None:
    """A table whose listings are plain FileInfo tuples (as a projection makes) plans the same."""
    from dataclasses import replace

    from maintainer.hudi.table.state import TableState

    root = Path(ct.make_table(tmp_path, "cow", 6, commits=12, partitions=12, rows=3).path)
    commits = ct.completed_commits(root)
    ct.write_completed_clean(str(root), commits[7], savepointed="")
    table = open_table(str(root))
    some = dict(list(table.snapshot.listings.items())[:3])
    plain = TableState(table.storage, replace(table.snapshot, listings=some), table.view)
    expected = plan_clean_node(table, spec(str(root), commits_retained=3), NOW)
    assert not expected.scope.full and expected.files
    assert plan_clean_node(plain, spec(str(root), commits_retained=3), NOW).files == expected.files


@pytest.mark.parametrize("earlier_clean", [False, True], ids=["full", "incremental"])
def test_plan_chooses_the_scope_once_and_plans_as_if_chosen_again(
    earlier_clean: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scope the builder chose to decide what to list (retention point, last clean, the
    window's partitions: commit metadata read) is the planner's: chosen once per plan, and the
    plan is the one a second choice would have made."""
    import maintainer.services.registry  # noqa: F401
    from maintainer.planning.builder import TableRequest, build_table
    from maintainer.services.clean import state

    root = Path(ct.make_table(tmp_path, "cow", 6, commits=12, partitions=12, rows=3).path)
    if earlier_clean:
        ct.write_completed_clean(str(root), ct.completed_commits(root)[7], savepointed="")
    table_spec = spec(str(root), commits_retained=3)
    chosen: list[object] = []
    real = state.clean_scope

    def counted(*args: object) -> state.CleanScope:
        chosen.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(state, "clean_scope", counted)
    built = build_table(TableRequest(table_spec, ("clean",)), {}, NOW)
    assert len(chosen) == 1
    (node,) = built.plan.nodes
    again = plan_clean_node(open_table(str(root)), table_spec, NOW)
    assert sorted(a.target for a in node.actions) == sorted(f.path for f in again.files)
    assert len(chosen) == 2  # planned again without the builder: chosen again
