"""Planning per ``metadata_table`` policy on real tables with a metadata table: ``sync`` (the
default for versions 8 and 9) plans every service, each node saying what it writes into the
metadata table; a metadata table unfit for sync blocks the table, naming the problem."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import NodePlan, NodeStatus, SyncMetadataTable
from maintainer.hudi.file_groups.integrity import newest_commit_files
from maintainer.hudi.table.state import open_table
from maintainer.planning import builder
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan
from maintainer.project.models import MetadataTablePolicy, TableSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.service import CleanService
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.services.savepoint.settings import SavepointsSpec
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
NOW = datetime.now(timezone.utc)
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
SERVICES = ("savepoint_create", "clean", "archive")


def plan(path: Path, policy: MetadataTablePolicy | None = None) -> dict[str, NodePlan]:
    spec = TableSpec.of(
        name="t",
        path=str(path),
        manifest="t.yml",
        line=1,
        metadata_table=policy,
        clean=CleanSpec(commits_retained=1),
        savepoints=SavepointsSpec(instants=("20260307162557587",)),
    )
    built: BuiltPlan = build_plan("proj", "dev", [TableRequest(spec, SERVICES)], {}, NOW, threads=1)
    return {n.service: n for n in built.plan.tables[0].nodes}


def test_sync_is_the_default_on_version_9_and_each_node_says_what_it_writes(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    nodes = plan(fixture_table(MOR_V9).path)
    savepoint = nodes["savepoint_create"]
    assert savepoint.status is NodeStatus.CHANGES
    (sync,) = savepoint.actions_of(SyncMetadataTable)
    assert savepoint.actions[-1] == sync
    assert sync.partitions == () and sync.reason.startswith("nothing: Hudi writes nothing")
    clean = nodes["clean"]
    assert clean.status is NodeStatus.CHANGES
    (clean_sync,) = clean.actions_of(SyncMetadataTable)
    assert clean.actions[-1] == clean_sync
    assert clean_sync.partitions == ("files", "column_stats")
    assert clean_sync.reason.startswith(f"files: the {len(clean.actions) - 1} deleted file(s) as deleted")
    archive = nodes["archive"]
    assert archive.status is not NodeStatus.BLOCKED
    if archive.status is NodeStatus.CHANGES:
        assert archive.actions[-1].kind == "sync_metadata_table"
        assert all(a.target < "20260307162612567" for a in archive.actions[:-1])  # its latest compaction


def test_refuse_blocks_every_node_and_says_what_to_do(fixture_table: Callable[[str], FixtureTable]) -> None:
    nodes = plan(fixture_table(MOR_V9).path, "refuse")
    for node in nodes.values():
        assert node.status is NodeStatus.BLOCKED
        assert "`metadata_table: refuse` in the manifest" in node.reasons[0]
        assert "`metadata_table: drop`" in node.reasons[0] and "`metadata_table: sync`" in node.reasons[0]


def _blocked_reasons(path: Path) -> set[str]:
    nodes = plan(path)
    assert all(n.status is NodeStatus.BLOCKED for n in nodes.values())
    return {n.reasons[0] for n in nodes.values()}


def test_a_failed_metadata_write_blocks_the_table(fixture_copy: Callable[[str], FixtureTable]) -> None:
    table = fixture_copy(MOR_V9)
    timeline = table.path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    (timeline / "20260307162700000.deltacommit.requested").write_bytes(b"")
    (reason,) = _blocked_reasons(table.path)
    assert "not in step with the table: metadata deltacommit 20260307162700000 is requested" in reason
    assert "A Hudi writer repairs it" in reason


def test_a_metadata_table_behind_the_data_timeline_blocks_the_table(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    instant = sorted((table.path / ".hoodie" / "timeline").glob("2*_*.deltacommit"))[-1].name.split("_")[0]
    for state in (table.path / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob(f"{instant}*"):
        state.unlink()
    (reason,) = _blocked_reasons(table.path)
    assert f"data instant {instant} (deltacommit) is not in the metadata table" in reason


def _list_partition(path: Path, name: str) -> None:
    properties = path / ".hoodie" / "hoodie.properties"
    text = properties.read_text(encoding="latin-1")
    key = "hoodie.table.metadata.partitions="
    properties.write_text(text.replace(key, f"{key}{name},"), encoding="latin-1")


def test_an_expression_index_blocks_the_table_until_expressions_are_evaluated(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    _list_partition(table.path, "expr_index_day")
    (reason,) = _blocked_reasons(table.path)
    assert "expression index (expr_index_day)" in reason and "evaluates expressions" in reason


def test_an_unknown_metadata_partition_blocks_the_table_naming_it(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    _list_partition(table.path, "vector_index")
    (reason,) = _blocked_reasons(table.path)
    assert "unknown metadata table partition 'vector_index'" in reason


def test_version_6_refuses_by_default_saying_why_and_that_drop_is_available(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy("sample_table_cow_v6_nonpartitioned")
    mdt = table.path / ".hoodie" / "metadata" / ".hoodie"
    mdt.mkdir(parents=True)
    (mdt / "hoodie.properties").write_bytes((table.path / ".hoodie" / "hoodie.properties").read_bytes())
    properties = table.path / ".hoodie" / "hoodie.properties"
    listed = properties.read_text(encoding="latin-1") + "hoodie.table.metadata.partitions=files\n"
    properties.write_text(listed, encoding="latin-1")
    (reason,) = _blocked_reasons(table.path)
    assert "does not sync metadata tables of table version 6" in reason
    assert "no independent reader here can verify one" in reason
    assert "`metadata_table: drop`" in reason and "metadata_table: sync" not in reason


def test_a_service_that_cannot_sync_is_blocked_before_it_is_planned(
    fixture_table: Callable[[str], FixtureTable], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CleanService, "syncs_metadata_table", False)
    nodes = plan(fixture_table(MOR_V9).path)
    assert nodes["clean"].status is NodeStatus.BLOCKED
    assert "does not keep the metadata table in sync for clean yet" in nodes["clean"].reasons[0]
    assert nodes["savepoint_create"].status is NodeStatus.CHANGES


def test_a_corrupt_files_block_blocks_the_table_naming_the_file(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    folder = table.path / ".hoodie" / "metadata" / "files"
    log = max((p for p in folder.glob(".files-*") if p.stat().st_size > 1000), key=lambda p: p.name)
    data = bytearray(log.read_bytes())
    start = data.index(b"DATABLK*")
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"
    log.write_bytes(bytes(data))
    (reason,) = _blocked_reasons(table.path)
    assert log.name in reason


ALL = ("rollback", "compaction", "savepoint_create", "clean", "archive")


def plan_all(path: Path) -> list[NodePlan]:
    spec = TableSpec.of(
        name="t",
        path=str(path),
        manifest="t.yml",
        line=1,
        clean=CleanSpec(commits_retained=1),
        compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)),
        archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3),
    )
    built = build_plan("proj", "dev", [TableRequest(spec, ALL)], {}, NOW, threads=1)
    return list(built.plan.tables[0].nodes)


@pytest.mark.parametrize("name", metadata_fixture_names())
def test_planning_from_the_files_partition_plans_what_a_storage_listing_plans(
    name: str, fixture_table: Callable[[str], FixtureTable], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = fixture_table(name).path
    listed: list[str] = []
    real = Storage.list_dirs_columns

    def counting(self: Storage, paths: Iterable[str], *, sizes: bool = True) -> Any:
        chosen = list(paths)
        listed.extend(self.uri(p).rsplit(path.name, 1)[-1] for p in chosen)
        return real(self, chosen, sizes=sizes)

    monkeypatch.setattr(Storage, "list_dirs_columns", counting)
    from_metadata = plan_all(path)
    planned_listings = list(listed)
    # the files partition, then only the partitions the newest commit wrote (checked against storage)
    committed = open_table(str(path)).committed
    newest = {item.path.rpartition("/")[0] for item in newest_commit_files(committed).values()}
    assert planned_listings == ["/.hoodie/metadata/files", *sorted(f"/{p}" if p else "" for p in newest)]
    monkeypatch.setattr(
        builder,
        "open_from_metadata_table",
        lambda s, m, t, r, sv, n, w=None: builder.open_for_services(s, r, sv, n, worked_out=w),
    )
    from_storage = plan_all(path)
    assert from_metadata == from_storage
