"""The clean planner on the columnar view against the object planner: the same plans (deletions,
reasons, sizes, emptied partitions) on random table states under all three policies, and the
clean node planning on the columnar view."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.file_groups.fsview import build_view
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.clean import planner
from maintainer.services.clean.columnar import columnar_partitions
from maintainer.services.clean.planner import CleanInputs, object_partitions, plan_clean
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.scope import ScanScope
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import plan_clean_node
from maintainer.storage import FileInfo
from tests.support.random_tables import START, RandomTable, random_tables, ts

SETTINGS = st.one_of(
    st.builds(CleanSettings, st.just(CleanPolicy.KEEP_LATEST_COMMITS), commits_retained=st.integers(1, 4)),
    st.builds(
        CleanSettings,
        st.just(CleanPolicy.KEEP_LATEST_FILE_VERSIONS),
        file_versions_retained=st.integers(1, 3),
    ),
    st.builds(CleanSettings, st.just(CleanPolicy.KEEP_LATEST_BY_HOURS), hours_retained=st.just(1)),
)


@settings(max_examples=300, deadline=None)
@given(random_tables(), SETTINGS, st.integers(0, 90), st.booleans())
def test_the_columnar_planner_plans_what_the_object_planner_plans(
    table: RandomTable, cleaner: CleanSettings, minutes: int, savepoints: bool
) -> None:
    view = build_view(table.timeline, table.listings, table.inputs)
    inputs = CleanInputs(
        table.timeline, view, ScanScope(True, "test"), table.savepointed if savepoints else frozenset()
    )
    now = START + timedelta(hours=1, minutes=minutes)  # by hours: retain from minute ``minutes``
    by_objects = plan_clean(inputs, cleaner, now)
    assert plan_clean(inputs, cleaner, now, columnar_partitions(table.listings)) == by_objects


def test_a_small_scan_plans_on_the_object_view_and_a_large_one_on_the_columnar_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    listings = {"p": [FileInfo(f"p/a-0_0-1-2_{ts(n)}.parquet", 1, False) for n in range(3)]}
    assert planner.partitions_planner(listings) is object_partitions
    monkeypatch.setattr(planner, "COLUMNAR_FROM_ENTRIES", 3)
    assert planner.partitions_planner(listings) is not object_partitions


def test_the_clean_node_plans_the_same_on_either_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workload = WorkloadSpec(partitions=3, file_groups=2, commits=5, rows_per_commit=20, seed=3)
    generate(str(tmp_path / "t"), DatagenSpec("t", "cow", 8, workload))
    spec = TableSpec.of(name="t", path=str(tmp_path / "t"), manifest="t.yml", line=1,
                     clean=CleanSpec(commits_retained=1))  # fmt: skip
    now = datetime.now(timezone.utc)
    on_objects = plan_clean_node(open_table(spec.path), spec, now)
    monkeypatch.setattr(planner, "COLUMNAR_FROM_ENTRIES", 0)
    on_columns = plan_clean_node(open_table(spec.path), spec, now)
    assert on_columns == on_objects
    assert on_objects.files
