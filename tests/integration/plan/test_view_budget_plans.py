"""A view that keeps one data file's partitions (every partition built again each time it is
read) gives the very plan the default view gives, on every fixture: same plan id (the hash of
the body) and the same payload bytes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

import pytest

from maintainer.hudi.file_groups import fsview
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from tests.support.fixtures import FixtureTable, fixture_names

pytestmark = pytest.mark.fixtures

SERVICES = ("rollback", "compaction", "clean", "archive")
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def plan(spec: TableSpec) -> BuiltPlan:
    built = build_plan(
        "p", "dev", [TableRequest(spec, SERVICES, mor_only=frozenset({"compaction"}))], {}, NOW
    )
    assert not built.errors, built.errors
    return built


@pytest.mark.parametrize("name", fixture_names())
def test_a_one_file_view_budget_plans_the_same(
    name: str, fixture_copy: Callable[[str], FixtureTable], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = fixture_copy(name)
    spec = TableSpec.of(name="t", path=str(table.path), manifest="t.yml", line=1, metadata_table="drop",
                     clean=CleanSpec(commits_retained=1),
                     compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)))  # fmt: skip
    default = plan(spec)
    monkeypatch.setattr(fsview, "VIEW_CACHE_FILES", 1)
    rebuilt_each_time = plan(spec)
    assert rebuilt_each_time.plan_id == default.plan_id
    assert rebuilt_each_time.payloads == default.payloads
