"""Savepoints on datagen tables: the savepoint keeps the files of its instant, so hudi's time
travel to it reads the same rows after every superseded file is deleted by hand (as a cleaner
respecting savepoints would); the instant decodes with Hudi's schema; deletion and an interrupted
creation are handled."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import fastavro
import pytest

from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.savepoint import create_savepoint, delete_savepoint
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.state import open_table
from maintainer.services.savepoint.planner import plan_savepoints
from maintainer.services.savepoint.settings import SavepointsSpec
from maintainer.services.savepoint.state import load_savepoint_inputs
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.support import oracle

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


class Crash(Exception):
    pass


def make_table(path: Path, kind: str, version: int) -> GeneratedTable:
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=5, rows_per_commit=20, update_ratio=0.5)
    return generate(str(path), DatagenSpec("t", kind, version, workload))


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["uuid"])


def delete_superseded_files(path: Path, keep: set[str]) -> list[str]:
    """Delete every data file that is neither in the latest view nor in ``keep``."""
    table = open_table(str(path))
    latest = {f.name for s in table.view.latest_slices() for f in s.files}
    deleted = []
    for data_file in table.view.all_files():
        if data_file.name not in latest and data_file.name not in keep:
            (path / data_file.path).unlink()
            deleted.append(data_file.name)
    return deleted


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8)])
def test_a_savepoint_keeps_time_travel_to_its_instant(tmp_path: Path, kind: str, version: int) -> None:
    path = tmp_path / "t"
    table = make_table(path, kind, version)
    target = table.completed[1]
    loaded = open_table(str(path))
    result = plan_savepoints(
        load_savepoint_inputs(loaded), SavepointsSpec(instants=(target,)), datetime.now(timezone.utc)
    )
    assert [a.instant_time for a in result.create] == [target]
    created = create_savepoint(loaded, target, comments="before the migration")
    assert created.is_completed and created.timestamp == target

    after = open_table(str(path))
    timeline = after.snapshot.timeline
    assert [s.timestamp for s in timeline.savepoints()] == [target]
    assert (path / timeline.file_path(created, State.INFLIGHT)).read_bytes() == b""
    data = (path / timeline.file_path(created)).read_bytes()
    record = next(
        fastavro.reader(io.BytesIO(data), reader_schema=hudi_reader_schema("HoodieSavepointMetadata"))
    )
    assert isinstance(record, dict) and record["comments"] == "before the migration"
    kept = {name for part in record["partitionMetadata"].values() for name in part["savepointDataFile"]}
    assert kept and kept == set(after.view.inputs.savepointed_files)

    deleted = delete_superseded_files(path, kept)
    if kind == "cow":  # MOR slices are only superseded by compaction, which datagen does not run
        assert deleted, "the table has superseded files the savepoint does not need"
    assert by_key(oracle.snapshot_rows(path, as_of=target, drop=META)) == by_key(table.expected[target])
    assert by_key(oracle.snapshot_rows(path, drop=META)) == by_key(table.expected[table.completed[-1]])


def test_without_the_savepoint_the_same_deletion_breaks_time_travel(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "cow", 6)
    target = table.completed[1]
    delete_superseded_files(path, set())
    try:
        rows = oracle.snapshot_rows(path, as_of=target, drop=META)
    except AssertionError:
        return
    assert by_key(rows) != by_key(table.expected[target])


def test_deleting_a_savepoint_removes_its_timeline_files(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "mor", 8)
    target = table.completed[2]
    create_savepoint(open_table(str(path)), target)
    loaded = open_table(str(path))
    result = plan_savepoints(load_savepoint_inputs(loaded), SavepointsSpec(), datetime.now(timezone.utc))
    assert [a.instant_time for a in result.delete] == [target]
    removed = delete_savepoint(loaded, target)
    assert len(removed) == 2
    assert not open_table(str(path)).snapshot.timeline.of_action(Action.SAVEPOINT)


def test_an_interrupted_creation_is_finished_by_a_rerun(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "cow", 8)
    target = table.completed[0]

    def crash(point: str) -> None:
        raise Crash(point)

    with pytest.raises(Crash):
        create_savepoint(open_table(str(path)), target, fault=crash)
    loaded = open_table(str(path))
    (pending,) = loaded.snapshot.timeline.of_action(Action.SAVEPOINT)
    assert pending.state is State.INFLIGHT
    settings = SavepointsSpec(instants=(target,))
    result = plan_savepoints(load_savepoint_inputs(loaded), settings, datetime.now(timezone.utc))
    assert [a.instant_time for a in result.create] == [target]
    assert create_savepoint(loaded, target).is_completed
    assert [s.timestamp for s in open_table(str(path)).snapshot.timeline.savepoints()] == [target]
