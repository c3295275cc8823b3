"""The clustering planner against Hudi itself: every v9 fixture table that ran Hudi 1.1.1's
``run_clustering`` (defaults, no trigger) is read as it was just before that clustering, and the
planner with Hudi's defaults (max_commits 0) must make the same plan, slice for slice, and
payload.py must encode the same ``HoodieRequestedReplaceMetadata`` (paths compared after mapping
the table's location when it was written, ``file:/tmp/v9-gen/...``, to the fixture's)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import parse_instant_time
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.hudi.table.state import open_table
from maintainer.services.clustering.inputs import plan_table_clustering, read_clustering_inputs
from maintainer.services.clustering.model import PlanStatus
from maintainer.services.clustering.payload import encode, requested_replace_metadata
from maintainer.services.clustering.planner import plan_clustering
from maintainer.services.clustering.settings import ClusteringSpec
from tests.support.clustering import clustering_fixture_names, state_before
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures

HUDI_DEFAULTS = ClusteringSpec(max_commits=0)
NOW = datetime(2026, 3, 8, tzinfo=timezone.utc)


def _clustering(table: Path) -> tuple[str, RequestedReplaceMetadata]:
    (requested,) = sorted((table / ".hoodie" / "timeline").glob("*.clustering.requested"))
    metadata = payloads.decode_requested_replace_metadata(requested.read_bytes(), str(requested))
    assert metadata is not None
    return requested.name.split(".")[0], metadata


def _written_root(metadata: RequestedReplaceMetadata) -> str:
    """The table's URI when Hudi wrote the plan (the part of a base path before its partition)."""
    assert metadata.clustering_plan is not None
    piece = metadata.clustering_plan.slices()[0]
    assert piece.data_file_path
    tail = f"/{piece.partition_path}/" if piece.partition_path else "/"
    return piece.data_file_path[: piece.data_file_path.rindex(tail + (piece.file_id or ""))]


@pytest.mark.parametrize("name", clustering_fixture_names())
def test_the_planner_makes_hudis_plan(fixture_table: Callable[[str], FixtureTable], name: str) -> None:
    path = fixture_table(name).path
    instant, hudi = _clustering(path)
    table = state_before(path, instant)
    inputs = read_clustering_inputs(table, HUDI_DEFAULTS, NOW)
    result = plan_clustering(inputs, HUDI_DEFAULTS, NOW, instant)
    assert result.status is PlanStatus.SCHEDULE, result.reasons
    ours = requested_replace_metadata(
        result.groups,
        HUDI_DEFAULTS,
        inputs.table_uri,
        table.snapshot.config.version,
        result.missing_partitions or (),
    )
    expected = repr(hudi).replace(_written_root(hudi), inputs.table_uri)
    assert repr(ours) == expected
    decoded = payloads.decode_requested_replace_metadata(encode(ours), "ours.clustering.requested")
    assert repr(decoded) == expected


def test_a_damaged_requested_payload_blocks_the_plan_naming_it(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    path = fixture_copy("sample_table_cow_v9_txns_simple_nometa").path
    instant, _ = _clustering(path)
    requested = path / ".hoodie" / "timeline" / f"{instant}.clustering.requested"
    requested.write_bytes(b"Obj\x01 cut short")
    table = state_before(path, "99999999999999999")
    result = plan_clustering(read_clustering_inputs(table, HUDI_DEFAULTS, NOW), HUDI_DEFAULTS, NOW)
    assert result.status is PlanStatus.BLOCKED
    assert result.reasons[0].startswith(f".hoodie/timeline/{instant}.clustering.requested cannot be read")


def test_after_hudis_clustering_the_next_plan_looks_only_at_partitions_written_since(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    path = fixture_table("sample_table_cow_v9_txns_simple_nometa").path
    instant, _ = _clustering(path)
    table = open_table(str(path))
    inputs = read_clustering_inputs(table, HUDI_DEFAULTS, NOW)
    after = [i.timestamp for i in table.snapshot.timeline.completed_commits() if i.timestamp > instant]
    assert set().union(*(inputs.written_partitions[t] for t in after)) == {"region=eu", "region=us"}
    result = plan_clustering(inputs, HUDI_DEFAULTS, NOW)
    assert result.status is PlanStatus.SCHEDULE
    assert [g.partition for g in result.groups] == ["region=eu", "region=us"]  # not region=apac
    assert f"incremental: 2 partitions written since the last clustering {instant}" in result.reasons


def _moment(instant: str, timeline_timezone: str) -> datetime:
    """The instant time as an aware datetime (the table writes its times in ``timeline_timezone``)."""
    naive = parse_instant_time(instant)
    return naive.replace(tzinfo=timezone.utc) if timeline_timezone.upper() == "UTC" else naive.astimezone()


def test_partitions_of_the_newest_writes_are_left_for_the_next_clustering(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    path = fixture_table("sample_table_cow_v9_txns_simple_nometa").path
    table = open_table(str(path))
    newest = table.snapshot.timeline.completed_commits()[-1]
    now = _moment(newest.timestamp, table.snapshot.config.timeline_timezone) + timedelta(seconds=1)
    spec = ClusteringSpec(max_commits=0, skip_partitions_written_within=timedelta(seconds=2))
    inputs = read_clustering_inputs(table, spec, now)
    assert inputs.written_partitions[newest.timestamp] == {"region=eu", "region=us"}
    result = plan_table_clustering(table, spec, now)
    assert result.status is PlanStatus.NO_OP and not result.groups  # the only partitions since are busy
    assert result.missing_partitions == ("region=eu", "region=us")
    assert any(r.startswith("skip_partitions_written_within 2s: 2 partitions") for r in result.reasons)
    unhurried = ClusteringSpec(max_commits=0)
    assert [g.partition for g in plan_table_clustering(table, unhurried, now).groups] == [
        "region=eu",
        "region=us",
    ]
