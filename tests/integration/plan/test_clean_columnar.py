"""The columnar view and the clean planner on it against the object view and planner, on every
real fixture and on generated tables (datagen's, and bench/listing.py's layout at a small scale):
the same slices (files, base instants, uncommitted files) and the same plans (deletions, reasons,
sizes, emptied partitions) under several clean settings, with the table's own savepoints,
replaced groups and pending operations and with more of each laid over them."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.file_groups.columnar import view_batches
from maintainer.hudi.file_groups.fsview import FileSystemView, PendingOperation, ViewInputs, build_view
from maintainer.hudi.instants.instant import parse_instant_time
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.clean.columnar import columnar_partitions
from maintainer.services.clean.planner import CleanInputs, CleanPlanResult, plan_clean
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.state import whole_table_inputs
from maintainer.storage.listing import Listings
from tests.support.fixtures import FixtureTable, fixture_names

SETTINGS = (
    CleanSettings(commits_retained=1),
    CleanSettings(commits_retained=2),
    CleanSettings(commits_retained=3),
    CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1),
    CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2),
    CleanSettings(policy=CleanPolicy.KEEP_LATEST_BY_HOURS, hours_retained=1),
)
SliceRow = tuple[str, str, str, tuple[str, ...]]


def object_slices(view: FileSystemView) -> set[SliceRow]:
    return {
        (
            group.partition,
            group.file_id,
            file_slice.base_instant,
            tuple(sorted(f.name for f in file_slice.files)),
        )
        for group in view.file_groups(include_replaced=True)
        for file_slice in group.slices
    }


def columnar_slices(table: TableState, inputs: ViewInputs, batch_files: int) -> tuple[set[SliceRow], int]:
    """The slices of the columnar view, and its uncommitted files."""
    rows: set[SliceRow] = set()
    uncommitted = 0
    timeline, listings = table.snapshot.timeline, table.snapshot.listings
    for batch in view_batches(timeline, listings, inputs, batch_files):
        names: dict[tuple[int, str, str], list[str]] = {}
        for part, file_id, base_instant, name in batch.files.select(
            "part", "file_id", "slice", "name"
        ).iter_rows():
            names.setdefault((part, file_id, base_instant), []).append(name)
        for part, file_id, base_instant in batch.slices.iter_rows():
            files = tuple(sorted(names.get((part, file_id, base_instant), [])))
            rows.add((batch.partitions[part], file_id, base_instant, files))
        uncommitted += sum(batch.uncommitted.values())
    return rows, uncommitted


def hours_now(table: TableState) -> datetime:
    """A clock one hour after the middle completed commit (KEEP_LATEST_BY_HOURS keeps half)."""
    commits = table.snapshot.timeline.completed_commits()
    if not commits:
        return datetime(2030, 1, 1, tzinfo=timezone.utc)
    middle = parse_instant_time(commits[len(commits) // 2].timestamp[:14]).replace(tzinfo=timezone.utc)
    return middle + timedelta(hours=1)


def overlaid(view: FileSystemView) -> tuple[ViewInputs, frozenset[str]]:
    """The view's inputs with more laid over them: the first group of every partition replaced,
    a pending compaction and a pending clustering on the second and third, and every third
    data file savepointed."""
    inputs = view.inputs
    replaced, compactions, clustering = dict(inputs.replaced_file_groups), dict(inputs.pending_compaction), {}
    latest = max((c.timestamp for c in view.timeline.completed_commits()), default="20300101000000000")
    for partition in view.partitions:
        groups = view.file_groups(partition, include_replaced=True)
        for index, group in enumerate(groups[:3]):
            key = (partition, group.file_id)
            first = group.slices[0].base_instant
            if index == 0:
                replaced.setdefault(key, latest)
            elif index == 1:
                compactions.setdefault(key, PendingOperation("29991231000000000", "compaction", first))
            else:
                clustering[key] = PendingOperation("29991231000000001", "replacecommit", first)
    files = sorted(f.name for f in view.all_files())
    more = replace(
        inputs, replaced_file_groups=replaced, pending_compaction=compactions, pending_clustering=clustering
    )
    return more, frozenset(files[::3]) | inputs.savepointed_files


def plans(
    table: TableState, inputs: CleanInputs, settings: CleanSettings
) -> tuple[CleanPlanResult, CleanPlanResult]:
    now = hours_now(table)
    by_objects = plan_clean(inputs, settings, now)
    by_columns = plan_clean(inputs, settings, now, columnar_partitions(table.snapshot.listings))
    return by_objects, by_columns


def assert_same_views_and_plans(table: TableState) -> int:
    """Every comparison on ``table`` as it is and overlaid; the files the plans delete."""
    deleted = 0
    more, savepointed = overlaid(table.view)
    for inputs in (table.view.inputs, more):
        view = build_view(table.snapshot.timeline, table.snapshot.listings, inputs)
        expected = object_slices(view)
        for batch_files in (1, 7, 100_000):
            assert columnar_slices(table, inputs, batch_files) == (expected, len(view.uncommitted))
        base = whole_table_inputs(TableState(table.storage, table.snapshot, view), "test")
        for clean_inputs in (base, replace(base, savepointed_files=savepointed)):
            for settings in SETTINGS:
                by_objects, by_columns = plans(table, clean_inputs, settings)
                assert by_columns == by_objects, settings
                deleted += len(by_objects.files)
    return deleted


@pytest.mark.fixtures
@pytest.mark.parametrize("name", fixture_names())
def test_the_columnar_view_and_planner_agree_with_the_object_ones_on_every_fixture(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    assert_same_views_and_plans(open_table(str(fixture_table(name).path)))


@pytest.mark.parametrize(
    ("table_type", "version", "failed"),
    [("cow", 6, False), ("mor", 6, True), ("cow", 8, True), ("mor", 8, False)],
)
def test_the_columnar_planner_agrees_on_generated_tables(
    tmp_path: Path, table_type: str, version: int, failed: bool
) -> None:
    workload = WorkloadSpec(partitions=3, file_groups=3, commits=6, rows_per_commit=30, seed=version)
    generate(str(tmp_path / "t"), DatagenSpec("t", table_type, version, workload, failed_write=failed))
    assert assert_same_views_and_plans(open_table(str(tmp_path / "t"))) > 0


def bench_listing() -> ModuleType:
    path = Path(__file__).resolve().parents[3] / "bench" / "listing.py"
    spec = importlib.util.spec_from_file_location("bench_listing", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", [6, 8])
def test_the_columnar_planner_agrees_on_the_benchmark_layout(tmp_path: Path, version: int) -> None:
    bench_listing().generate(tmp_path, version, 12, 4, 3)
    assert assert_same_views_and_plans(open_table(str(tmp_path))) > 0


@pytest.mark.fixtures
@pytest.mark.parametrize("name", fixture_names())
def test_a_clean_planned_on_a_names_only_listing_is_the_same_plan_on_every_fixture(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    """What the clean plans names-only (sizes asked only of the files it deletes) is what it plans
    on a full listing: the same deletions, reasons, sizes and emptied partitions."""
    path = str(fixture_table(name).path)
    sized = open_table(path)
    for settings in SETTINGS:
        names_only = open_table(path, sizes=False)
        listings = names_only.snapshot.listings
        assert isinstance(listings, Listings)
        inputs = whole_table_inputs(names_only, "test")
        planned = plan_clean(inputs, settings, hours_now(sized), columnar_partitions(listings))
        expected = plan_clean(whole_table_inputs(sized, "test"), settings, hours_now(sized))
        assert planned == expected, settings
        assert not any(listings.dir_listing(p).sizes_listed for p in listings)  # only asked, never listed
