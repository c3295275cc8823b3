"""Planning reads each table's ``hoodie.properties`` once and lists its timeline once: the
fitness check's head read and the planning read share them (on an object store every read is a
request). Counted on a Storage that records what it reads."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean import planner as clean_planner
from maintainer.services.clean import state as clean_state
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.storage import Storage

WITHOUT_ARCHIVE = ("rollback", "compaction", "clean")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Full path -> times read (``read_bytes``, ``read_bytes_within``) or listed
    (``list_dir_columns``, as ``LIST path``)."""
    seen: Counter[str] = Counter()
    read_bytes, list_dir_columns = Storage.read_bytes, Storage.list_dir_columns
    read_bytes_within = Storage.read_bytes_within

    def counted_read(self: Storage, path: str) -> bytes:
        seen[self.uri(path)] += 1
        return read_bytes(self, path)

    def counted_read_within(self: Storage, path: str, limit: int) -> bytes | None:
        seen[self.uri(path)] += 1
        return read_bytes_within(self, path, limit)

    def counted_list(self: Storage, path: str, *args: Any, **kwargs: Any) -> Any:
        seen[f"LIST {self.uri(path)}"] += 1
        return list_dir_columns(self, path, *args, **kwargs)

    monkeypatch.setattr(Storage, "read_bytes", counted_read)
    monkeypatch.setattr(Storage, "read_bytes_within", counted_read_within)
    monkeypatch.setattr(Storage, "list_dir_columns", counted_list)
    return seen


def table(tmp_path: Path, version: int) -> Path:
    path = tmp_path / f"v{version}"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=4, rows_per_commit=10, seed=version)
    spec = DatagenSpec("t", "mor", version, workload, failed_write=True, metadata_table=version == 8)
    generate(str(path), spec)
    return path


def plan(path: Path, services: Iterable[str]) -> None:
    spec = TableSpec.of(
        name="t",
        path=str(path),
        manifest="t.yml",
        line=1,
        rollback=RollbackSpec(min_age=timedelta(0)),
        compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)),
        clean=CleanSpec(commits_retained=1),
        archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3),
    )
    now = datetime.now(timezone.utc)
    built = build_plan("proj", "dev", [TableRequest(spec, tuple(services))], {}, now, threads=1)
    nodes = built.plan.tables[0].nodes
    assert [node.status.value for node in nodes][:2] == ["changes", "changes"], [n.reasons for n in nodes]


def uri(table: Path, path: str) -> str:
    return Storage(str(table)).uri(path)


@pytest.mark.parametrize("version", [8, 6])
def test_a_plan_reads_the_tables_properties_and_timeline_once(
    version: int, tmp_path: Path, reads: Counter[str]
) -> None:
    path = table(tmp_path, version)
    reads.clear()
    plan(path, (*WITHOUT_ARCHIVE, "archive"))
    assert reads[uri(path, ".hoodie/hoodie.properties")] == 1
    assert reads["LIST " + uri(path, ".hoodie/timeline" if version == 8 else ".hoodie")] == 1


def test_with_metadata_table_sync_its_properties_and_timeline_are_read_once_too(
    tmp_path: Path, reads: Counter[str]
) -> None:
    path = table(tmp_path, 8)
    reads.clear()
    plan(path, (*WITHOUT_ARCHIVE, "archive"))  # archival asks for the metadata table's compaction
    assert reads[uri(path, ".hoodie/metadata/.hoodie/hoodie.properties")] == 1
    assert reads["LIST " + uri(path, ".hoodie/metadata/.hoodie/timeline")] == 1


def test_a_clean_nodes_earliest_commit_to_retain_is_computed_once_per_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Choosing which partitions to list and planning the clean both need the earliest commit to
    retain: it is computed once, when the partitions are chosen (``prepare``), and handed to
    the planner with the scope (``plan_prepared``)."""
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=1)
    generate(str(path), DatagenSpec("t", "cow", 8, workload))
    computed: Counter[str] = Counter()
    for module in (clean_state, clean_planner):
        original = module.earliest_commit_to_retain

        def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            computed["ectr"] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "earliest_commit_to_retain", counted)
    spec = TableSpec.of(
        name="t", path=str(path), manifest="t.yml", line=1, clean=CleanSpec(commits_retained=1)
    )
    built = build_plan("proj", "dev", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc))
    (node,) = built.plan.nodes()
    assert node.status.value == "changes", node.reasons
    assert computed["ectr"] == 1
