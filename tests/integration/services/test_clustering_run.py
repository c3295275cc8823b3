"""Clustering run in process on generated tables (COW and MOR, versions 6, 8 and 9, many small
files), checked against ``hudi`` (hudi-rs): the same rows before and after, time travel to
every earlier commit unchanged, the replaced file groups hidden, ``numOutputFileGroups`` new
files per group sorted by the sort columns; crashes at every fault point are finished by a
re-run; the metadata table kept in sync passes the metadata check (a generated v8 table and
the v9 fixture with a record index)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import fastavro
import pyarrow.parquet as pq
import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import ApplyError
from maintainer.executors.clustering.executor import ClusteringOutcome, run_clustering
from maintainer.executors.common.metadata_sync import clustering_writes
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.record_index import indexed_location
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates.build import instant_epoch_millis
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from tests.integration.services.test_compaction_run import without_comments
from tests.support import fixtures as fx
from tests.support import oracle
from tests.support.clustering_plans import clustering_plan
from tests.support.plans import files_to_delete

FILE_NAME = "_hoodie_file_name"
REQUESTED_SCHEMA = (
    Path(__file__).resolve().parents[3].parent
    / "shared/reference/hudi-avsc/HoodieRequestedReplaceMetadata.from_real_file.avsc"
)
REPLACE_SCHEMA = (
    Path(__file__).resolve().parents[3].parent
    / "shared/reference/hudi-avsc/HoodieReplaceCommitMetadata.from_real_file.avsc"
)


def generated(tmp_path: Path, kind: str, version: int, **options: Any) -> Path:
    workload = WorkloadSpec(partitions=2, file_groups=4, commits=4, rows_per_commit=80, seed=11)
    path = tmp_path / f"{kind}_v{version}"
    generate(str(path), DatagenSpec("trips", kind, version, workload, **options))
    return path


def reads(path: Path) -> dict[str, list[dict[str, Any]]]:
    """hudi's snapshot (file names dropped) and its time travel to every completed commit."""
    result = {"snapshot": oracle.snapshot_rows(path, drop=[FILE_NAME])}
    for instant in oracle.completed_commit_times(path):
        result[instant] = oracle.snapshot_rows(path, as_of=instant)
    return result


def cluster(path: Path, plan: RequestedReplaceMetadata, **options: Any) -> ClusteringOutcome:
    table = open_table(str(path))
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    return run_clustering(table.storage, table.snapshot.config, instant, plan, **options)


def check_clustered(
    path: Path, before: dict[str, list[dict[str, Any]]], outcome: ClusteringOutcome, outputs: int
) -> None:
    after = reads(path)
    assert after["snapshot"] == before["snapshot"], "the snapshot changed"
    for instant, rows in before.items():
        assert after[instant] == rows, f"time travel to {instant} changed"
    slices = oracle.file_slices(path)
    replaced = {file_id for _, file_id in outcome.replaced}
    assert not replaced & {s[1] for s in slices}, "a replaced file group is still visible"
    new = [s for s in slices if s[2] == outcome.instant.timestamp]
    partitions = {p for p, _ in outcome.replaced}
    assert len(new) == outputs * len(partitions) == len(outcome.stats)
    assert all(s[4] == () for s in new), "new file groups have no log files"
    rows = oracle.snapshot_rows(path)
    assert {r[FILE_NAME] for r in rows} <= {s[3] for s in slices}
    assert not (path / ".hoodie/.temp" / outcome.instant.timestamp).exists(), "markers left behind"


def check_requested(path: Path, outcome: ClusteringOutcome, plan: RequestedReplaceMetadata) -> None:
    """The requested file holds the plan, readable with Hudi's own schema."""
    config = open_table(str(path)).snapshot.config
    action = "clustering" if config.version >= 8 else "replacecommit"
    data = (path / config.timeline_dir / f"{outcome.instant.timestamp}.{action}.requested").read_bytes()
    assert payloads.decode_requested_replace_metadata(data, "requested") == plan
    reader_schema = fastavro.parse_schema(json.loads(without_comments(REQUESTED_SCHEMA.read_text())))
    (record,) = list(fastavro.reader(io.BytesIO(data), reader_schema=reader_schema))
    assert cast(dict[str, Any], record)["operationType"] == "CLUSTER"


def sorted_files(path: Path, outcome: ClusteringOutcome, column: str) -> None:
    for stat in outcome.stats:
        values = pq.read_table(path / (stat.path or ""), columns=[column]).column(column).to_pylist()
        assert values == sorted(values), f"{stat.path} is not sorted by {column}"
        assert stat.num_writes == stat.num_inserts == len(values) and stat.prev_commit == "null"


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8), ("mor", 9)])
def test_clustering_of_generated_tables(kind: str, version: int, tmp_path: Path) -> None:
    path = generated(tmp_path, kind, version)
    table = open_table(str(path))
    assert len(table.view.latest_slices()) == 8
    if kind == "mor":
        assert any(s.log_files for s in table.view.latest_slices()), "MOR slices to merge"
    before = reads(path)
    plan = clustering_plan(path, outputs=2, sort_columns="fare")
    outcome = cluster(path, plan)
    check_clustered(path, before, outcome, outputs=2)
    sorted_files(path, outcome, "fare")
    check_requested(path, outcome, plan)
    names = sorted(
        p.name for p in (path / table.snapshot.config.timeline_dir).glob(f"{outcome.instant.timestamp}*")
    )
    if version == 6:
        assert names == [
            f"{outcome.instant.timestamp}.replacecommit{s}" for s in ("", ".inflight", ".requested")
        ]
    else:
        completed = f"{outcome.instant.timestamp}_{outcome.instant.completion_time}.replacecommit"
        pending = [f"{outcome.instant.timestamp}.clustering.{s}" for s in ("inflight", "requested")]
        assert names == [*pending, completed]
    inflight = (
        path
        / table.snapshot.config.timeline_dir
        / f"{outcome.instant.timestamp}.{'clustering' if version > 6 else 'replacecommit'}.inflight"
    )
    assert inflight.read_bytes() == b""


@pytest.mark.parametrize("layout", ["z-order", "hilbert"])
def test_curve_layouts_keep_every_row(layout: str, tmp_path: Path) -> None:
    path = generated(tmp_path, "cow", 8)
    before = reads(path)
    outcome = cluster(path, clustering_plan(path, outputs=3, sort_columns="fare,rider", layout=layout))
    check_clustered(path, before, outcome, outputs=3)


def test_the_commit_decodes_with_hudis_schema_like_the_fixture_clustering(tmp_path: Path) -> None:
    path = generated(tmp_path, "cow", 9)
    outcome = cluster(path, clustering_plan(path))
    table = open_table(str(path))
    entry = table.snapshot.timeline.entry(outcome.instant.timestamp, Action.CLUSTERING)
    assert entry is not None and entry.instant.is_completed
    data = (path / table.snapshot.timeline.file_path(entry.instant)).read_bytes()
    reader_schema = fastavro.parse_schema(json.loads(without_comments(REPLACE_SCHEMA.read_text())))
    (record,) = list(fastavro.reader(io.BytesIO(data), reader_schema=reader_schema))
    ours = cast(dict[str, Any], record)
    assert ours["operationType"] == "CLUSTER" and ours["compacted"] is False and ours["version"] is None
    assert list(ours["extraMetadata"]) == ["schema"] and "_hoodie" not in ours["extraMetadata"]["schema"]
    replaced = {p: sorted(ids) for p, ids in ours["partitionToReplaceFileIds"].items()}
    expected: dict[str, list[str]] = {}
    for partition, file_id in outcome.replaced:
        expected.setdefault(partition, []).append(file_id)
    assert replaced == {p: sorted(ids) for p, ids in expected.items()}
    for stats in ours["partitionToWriteStats"].values():
        for stat in stats:
            assert stat["fileSizeInBytes"] == stat["totalWriteBytes"] == (path / stat["path"]).stat().st_size


@pytest.mark.parametrize("point", ["after_requested", "after_inflight", "after_group", "before_commit"])
@pytest.mark.parametrize("version", [6, 8])
def test_a_crash_at_each_point_is_finished_by_a_rerun(
    point: str, version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, "mor", version)
    before = reads(path)
    table = open_table(str(path))
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    monkeypatch.setenv(FAULT_ENV, f"clustering:{point}")
    with pytest.raises(InjectedFault):
        run_clustering(table.storage, table.snapshot.config, instant, clustering_plan(path, outputs=2))
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before["snapshot"]
    partial = sorted(str(p.relative_to(path)) for p in path.rglob(f"*_{instant}.parquet"))
    monkeypatch.delenv(FAULT_ENV)
    redone = run_clustering(table.storage, table.snapshot.config, instant)
    assert sorted(redone.rolled_back_files) == partial
    if partial:
        rollbacks = open_table(str(path)).snapshot.timeline.of_action(Action.ROLLBACK)
        assert [r.timestamp for r in rollbacks] == [redone.rollback_instant]
        assert not any((path / p).exists() for p in partial)
    check_clustered(path, before, redone, outputs=2)
    keys = [r["_hoodie_record_key"] for r in oracle.snapshot_rows(path)]
    assert len(keys) == len(set(keys)), "duplicate records"


def _check(path: Path) -> None:
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    assert check_metadata_table(table, mdt).problems() == []


@pytest.mark.parametrize(
    "points",
    [(), ("after_metadata_table",), ("after_metadata_table", "rollback_after_metadata_table")],
)
def test_metadata_table_is_kept_in_sync(
    points: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash after the metadata deltacommit: the re-run rolls it back with its rollback of
    the attempt (also when that rollback crashed after its metadata step), then syncs again."""
    path = generated(tmp_path, "mor", 8, metadata_table=True)
    before = reads(path)
    table = open_table(str(path))
    mdt = open_metadata_table(table)
    assert mdt is not None and clustering_writes(mdt, 4).partitions == ("files",)
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    plan: RequestedReplaceMetadata | None = clustering_plan(path, outputs=2, sort_columns="fare")
    for point in points:
        monkeypatch.setenv(FAULT_ENV, f"clustering:{point}")
        with pytest.raises(InjectedFault):
            run_clustering(table.storage, table.snapshot.config, instant, plan, sync_metadata=True)
        plan = None
    monkeypatch.delenv(FAULT_ENV, raising=False)
    outcome = run_clustering(table.storage, table.snapshot.config, instant, plan, sync_metadata=True)
    check_clustered(path, before, outcome, outputs=2)
    _check(path)
    assert (outcome.rollback_instant is not None) == bool(points)


TXNS_WITH_METADATA = [
    f"sample_table_{kind}_v9_txns_{keys}_meta"
    for kind in ("cow", "mor_avro")
    for keys in ("simple", "complex", "nonpart")
]
"""Hudi 1.1.1 tables with files, column_stats, partition_stats, record_index and secondary indexes."""


@pytest.mark.fixtures
@pytest.mark.parametrize("name", TXNS_WITH_METADATA)
def test_record_index_of_the_v9_fixtures_follows_the_moved_keys(
    name: str, fixture_copy: Callable[[str], fx.FixtureTable]
) -> None:
    path = fixture_copy(name).path
    mdt = open_metadata_table(open_table(str(path)))
    assert mdt is not None and "record_index" in clustering_writes(mdt, 1).partitions
    before = reads(path)
    outcome = cluster(path, clustering_plan(path, outputs=1, sort_columns="txn_id"), sync_metadata=True)
    check_clustered(path, before, outcome, outputs=1)
    _check(path)
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    records = mdt.read_partition("record_index")
    millis = instant_epoch_millis(outcome.instant.timestamp, table.snapshot.config.timeline_timezone)
    new_ids = {s.file_id for s in outcome.stats}
    rows = oracle.snapshot_rows(path)
    assert rows and all(r[FILE_NAME].split("_")[0] in new_ids for r in rows)
    for row in rows:
        record = records[row["_hoodie_record_key"]]
        assert indexed_location(record) == (row["_hoodie_partition_path"], row[FILE_NAME].split("_")[0])
        assert record["recordIndexMetadata"]["instantTime"] == millis


@pytest.mark.spark
def test_groups_run_as_spark_tasks(tmp_path: Path, spark: Any) -> None:
    path = generated(tmp_path, "mor", 8)
    before = reads(path)
    from maintainer.spark.tasks import SparkRunner

    outcome = cluster(path, clustering_plan(path, outputs=2, sort_columns="fare"), runner=SparkRunner(spark))
    check_clustered(path, before, outcome, outputs=2)
    sorted_files(path, outcome, "fare")


@pytest.mark.parametrize(
    "point", ["rollback_after_requested", "rollback_after_deletes", "rollback_after_completed"]
)
def test_a_crash_in_the_rollback_of_a_failed_attempt_is_finished_by_a_rerun(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path, "cow", 8)
    before = reads(path)
    table = open_table(str(path))
    instant = TimelineWriter(table.storage, table.snapshot.config).new_instant_time()
    monkeypatch.setenv(FAULT_ENV, "clustering:before_commit")
    with pytest.raises(InjectedFault):
        run_clustering(table.storage, table.snapshot.config, instant, clustering_plan(path, outputs=2))
    partial = sorted(str(p.relative_to(path)) for p in path.rglob(f"*_{instant}.parquet"))
    assert len(partial) == 4
    monkeypatch.setenv(FAULT_ENV, f"clustering:{point}")
    with pytest.raises(InjectedFault):
        run_clustering(table.storage, table.snapshot.config, instant)
    monkeypatch.delenv(FAULT_ENV)
    redone = run_clustering(table.storage, table.snapshot.config, instant)
    rollbacks = open_table(str(path)).snapshot.timeline.of_action(Action.ROLLBACK)
    assert all(r.is_completed for r in rollbacks) and redone.rollback_instant == rollbacks[-1].timestamp
    # a pending rollback is finished with its own instant; a completed one that had not yet
    # reverted the clustering to requested is followed by a second (its files already gone), as in Hudi
    assert len(rollbacks) == (2 if point == "rollback_after_completed" else 1)
    assert not any((path / p).exists() for p in partial)
    check_clustered(path, before, redone, outputs=2)


def _timeline_files(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in (path / ".hoodie").rglob("*") if p.is_file())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("no_such_column", None), "does not have"),
        ((None, "spiral"), "unknown layout"),
    ],
)
def test_a_plan_that_cannot_run_leaves_the_table_untouched(
    options: tuple[str | None, str | None], message: str, tmp_path: Path
) -> None:
    path = generated(tmp_path, "cow", 8)
    files = _timeline_files(path)
    with pytest.raises(ApplyError, match=message):
        cluster(path, clustering_plan(path, sort_columns=options[0], layout=options[1]))
    assert _timeline_files(path) == files


def test_only_clustering_plans_are_run(tmp_path: Path) -> None:
    path = generated(tmp_path, "cow", 6)
    files = _timeline_files(path)
    overwrite = replace(clustering_plan(path), operation_type="INSERT_OVERWRITE")
    with pytest.raises(ApplyError, match="INSERT_OVERWRITE, not a clustering"):
        cluster(path, overwrite)
    table = open_table(str(path))
    with pytest.raises(ApplyError, match=r"no clustering \d+ in the table and no plan given"):
        run_clustering(table.storage, table.snapshot.config, "20990101000000000")
    assert _timeline_files(path) == files
    done = cluster(path, clustering_plan(path))
    with pytest.raises(ApplyError, match="already completed"):
        run_clustering(table.storage, table.snapshot.config, done.instant.timestamp)


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 8)])
def test_the_cleaner_plans_to_delete_the_replaced_file_groups(
    kind: str, version: int, tmp_path: Path
) -> None:
    path = generated(tmp_path, kind, version)
    table = open_table(str(path))
    old_files = {f.path for s in table.view.latest_slices() for f in s.files}
    outcome = cluster(path, clustering_plan(path, outputs=2))
    before = oracle.snapshot_rows(path, drop=[FILE_NAME])
    clean = CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1)
    spec = TableSpec.of(name="t", path=str(path), manifest="tables/t.yml", line=1, clean=clean)
    built = build_plan("p", "dev", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc))
    assert not built.errors
    planned = files_to_delete(built.plan.tables[0].nodes[0])
    assert old_files <= planned, "every file of the replaced file groups is cleaned"
    assert not {s.path for s in outcome.stats} & planned, "the new base files are kept"
    for relative in planned:
        (path / relative).unlink()
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before
