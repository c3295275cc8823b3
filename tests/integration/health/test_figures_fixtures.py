"""``status``'s figures on every real Hudi fixture, against what ``inspect`` reports for the
table and what the ``hudi`` (hudi-rs) reader lists: latest file slices, log files, base files
and their sizes on disk, pending instants, the active timeline and the last clean."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from maintainer.health.assess import assess_fleet
from maintainer.health.records import TableHealth
from maintainer.hudi.table.inspection import describe
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest
from maintainer.project.models import TableSpec
from maintainer.project.objectives import SMALL_FILE_LIMIT
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.services.metadata.settings import MetadataSpec
from maintainer.services.rollback.settings import RollbackSpec
from tests.support import oracle
from tests.support.fixtures import FixtureTable, fixture_names, metadata_fixture_names

pytestmark = pytest.mark.fixtures

NON_LANCE = [n for n in fixture_names() if "lance" not in n]
SERVICES = ("rollback", "compaction", "clean", "metadata", "archive")
NOW = datetime(2026, 11, 28, tzinfo=UTC)


def spec_of(table: FixtureTable) -> TableSpec:
    return TableSpec.of(
        name="t",
        path=str(table.path),
        manifest="tables/t.yml",
        line=1,
        rollback=RollbackSpec(),
        compaction=CompactionSpec(),
        clean=CleanSpec(),
        metadata=MetadataSpec(),
        archive=ArchiveSpec(),
    )


def assessed(table: FixtureTable) -> TableHealth:
    request = TableRequest(spec_of(table), SERVICES, mor_only=frozenset({"compaction"}))
    fleet = assess_fleet("p", "dev", [request], {}, NOW, threads=1)
    (health,) = fleet.tables
    return health


@pytest.mark.parametrize("name", NON_LANCE)
def test_file_figures_equal_hudi_file_slices_and_sizes_on_disk(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = fixture_table(name)
    health = assessed(table)
    assert health.error is None, health.error
    slices = oracle.file_slices(table.path)
    logs = health.log_backlog
    assert logs is not None and health.small_files is not None
    assert logs.slices == len(slices)
    assert logs.log_files == sum(len(s[4]) for s in slices)
    assert logs.max_log_files_per_slice == max((len(s[4]) for s in slices), default=0)
    assert logs.slices_with_logs == sum(1 for s in slices if s[4])
    log_sizes = [sum(os.path.getsize(table.path / s[0] / log) for log in s[4]) for s in slices]
    assert logs.log_bytes == sum(log_sizes)
    bases = [table.path / s[0] / s[3] for s in slices if s[3]]
    sizes = [os.path.getsize(base) for base in bases]
    assert health.small_files.base_files == len(bases)
    assert health.small_files.small_files == sum(1 for size in sizes if size < SMALL_FILE_LIMIT)
    if table.is_mor and sum(sizes) > 0:
        assert logs.read_amplification == round(sum(log_sizes) / sum(sizes), 4)
    else:
        assert logs.read_amplification is None


@pytest.mark.parametrize("name", fixture_names())
def test_timeline_figures_equal_inspect(name: str, fixture_table: Callable[[str], FixtureTable]) -> None:
    table = fixture_table(name)
    health = assessed(table)
    state = open_table(str(table.path), verify=False)
    described = describe(state.snapshot, state.view)
    assert health.timeline is not None
    assert health.timeline.active_instants == len(described["instants"])
    assert [f"{p.instant}.{p.action}" for p in health.pending] == described["pending"]
    cleans = [
        i["timestamp"] for i in described["instants"] if i["action"] == "clean" and i["state"] == "COMPLETED"
    ]
    last_clean = next(r for r in health.last_runs if r.service == "clean")
    assert last_clean.instant == (cleans[-1] if cleans else None)
    retained = sum(
        len(group["slices"]) - (0 if group["replaced"] else 1)
        for partition in described["partitions"]
        for group in partition["file_groups"]
    )
    assert health.versions is not None and health.versions.retained_versions == retained
    metadata = health.metadata_table
    assert (metadata is not None) == described["metadata_table"]["exists"]
    if metadata is not None:
        assert list(metadata.partitions) == described["metadata_table"]["partitions"]


@pytest.mark.parametrize("name", metadata_fixture_names())
def test_metadata_table_figures_equal_the_metadata_nodes_effect(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = fixture_table(name)
    health = assessed(table)
    metadata = health.metadata_table
    assert metadata is not None
    node = next(w for w in health.why_not if w.service == "metadata")
    assert metadata.in_sync, node
    mdt = open_table(str(table.path / ".hoodie" / "metadata"), verify=False)
    timeline = mdt.snapshot.timeline
    compactions = [i.timestamp for i in timeline.completed() if i.action.value in ("commit", "compaction")]
    assert metadata.last_compaction == (compactions[-1] if compactions else None)
    since = [
        i
        for i in timeline.completed()
        if i.action.value == "deltacommit" and (not compactions or i.timestamp > compactions[-1])
    ]
    assert metadata.deltacommits_since_compaction == len(since)
