"""The clean planner on the columnar view against the object planner: the same plans (deletions,
reasons, sizes, emptied partitions) on random table states under all three policies, and the
clean node planning on the columnar view."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.file_groups.fsview import build_view
from maintainer.services.clean.columnar import columnar_partitions
from maintainer.services.clean.planner import CleanInputs, plan_clean
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.scope import ScanScope
from tests.support.random_tables import START, RandomTable, random_tables

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
