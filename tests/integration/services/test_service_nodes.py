"""Rollback, archive and savepoint nodes: the plan's actions, reasons, effect and payloads, and
applying an approved node (never more than approved)."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import fastavro

from maintainer.artifact.model import NodeStatus, RollbackAction, RollbackEffect, read_body
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.savepoint import create_savepoint
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.archive.apply import apply_archive_node
from maintainer.services.archive.node import plan_archive_service
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.rollback.apply import apply_rollback_node
from maintainer.services.rollback.node import plan_rollback_service, rollback_payloads
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.savepoint.apply import apply_savepoint_create_node, apply_savepoint_delete_node
from maintainer.services.savepoint.node import plan_savepoint_create_service, plan_savepoint_delete_service
from maintainer.services.savepoint.settings import RollingSavepoints, SavepointsSpec
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.support import oracle
from tests.support.plans import plan, table_plan


def now() -> datetime:
    return datetime.now(timezone.utc)


META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def spec(path: Path, **services: object) -> TableSpec:
    return TableSpec.of(name="t", path=str(path), manifest="tables/t.yml", line=1, **services)


def test_rollback_node_lists_the_rollback_with_its_payload_and_applies_it(tmp_path: Path) -> None:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, commits=3, rows_per_commit=20)
    table = generate(str(path), DatagenSpec("t", "mor", 6, workload, failed_write=True))
    table_spec = spec(path, rollback=RollbackSpec(min_age=timedelta(0)))
    node = plan_rollback_service(open_table(str(path)), table_spec, now())
    assert node.status is NodeStatus.CHANGES
    (action,) = node.actions
    assert isinstance(action, RollbackAction)
    assert (action.kind, action.target) == ("rollback", table.failed_instant)
    assert action.rollback_blocks_for and not action.delete_files
    (payload,) = rollback_payloads(node, open_table(str(path)).storage, "plan-id").values()
    record = next(
        fastavro.reader(io.BytesIO(payload), reader_schema=hudi_reader_schema("HoodieRollbackPlan"))
    )
    assert isinstance(record, dict)
    assert record["instantToRollback"] == {"commitTime": table.failed_instant, "action": "deltacommit"}
    whole = plan(table_plan("t", (node,)))
    assert read_body(whole.body()) == whole, "the node reads back from its JSON as planned"

    (outcome,) = apply_rollback_node(open_table(str(path)), table_spec, node, now())
    assert outcome.rollback_instant is not None
    requested = outcome.rollback_instant.timestamp + ".rollback.requested"
    assert (path / ".hoodie" / requested).read_bytes() == payload, "apply writes the reviewed payload"
    got = oracle.snapshot_rows(path, drop=META)
    assert sorted(got, key=lambda r: r["uuid"]) == sorted(
        table.expected[table.completed[-1]], key=lambda r: r["uuid"]
    )
    again = plan_rollback_service(open_table(str(path)), table_spec, now())
    assert again.status is NodeStatus.NO_OP and again.reasons == ("no failed write to roll back",)


def test_rollback_node_says_why_a_live_write_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "t"
    generate(
        str(path), DatagenSpec("t", "cow", 8, WorkloadSpec(commits=2, rows_per_commit=5), failed_write=True)
    )
    node = plan_rollback_service(open_table(str(path)), spec(path, rollback=RollbackSpec()), now())
    assert node.status is NodeStatus.NO_OP
    assert "younger than min_age" in node.reasons[0]
    assert isinstance(node.effect, RollbackEffect) and node.effect.left_alone


def test_archive_node_never_archives_past_the_approved_range(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = generate(
        str(path), DatagenSpec("t", "cow", 8, WorkloadSpec(partitions=1, commits=10, rows_per_commit=4))
    )
    table_spec = spec(path, archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=4))
    node = plan_archive_service(open_table(str(path)), table_spec, now())
    assert [a.target for a in node.actions] == list(table.completed[:8])
    approved = replace(node, actions=node.actions[:3])
    outcome = apply_archive_node(open_table(str(path)), table_spec, approved).outcome
    assert outcome.records_written == 3
    active = [i.timestamp for i in open_table(str(path)).snapshot.timeline.completed_commits()]
    assert active == list(table.completed[3:])


def test_archive_drift_names_the_savepoint_that_now_stops_it(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = generate(
        str(path), DatagenSpec("t", "cow", 8, WorkloadSpec(partitions=1, commits=10, rows_per_commit=4))
    )
    table_spec = spec(path, archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=4))
    node = plan_archive_service(open_table(str(path)), table_spec, now())
    savepointed = table.completed[3]
    create_savepoint(open_table(str(path)), savepointed, comments="since the plan")

    applied = apply_archive_node(open_table(str(path)), table_spec, node)
    assert applied.outcome.records_written == 3
    refused = set(table.completed[3:8])
    assert set(applied.refused) == refused
    assert all(f"the savepoint {savepointed}" in why for why in applied.refused.values())


def test_savepoint_nodes_create_listed_and_delete_unlisted_savepoints(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = generate(
        str(path), DatagenSpec("t", "cow", 6, WorkloadSpec(partitions=1, commits=3, rows_per_commit=4))
    )
    first, second = table.completed[0], table.completed[1]
    wanted = spec(path, savepoints=SavepointsSpec(instants=(first, second, "20000101000000000")))
    create = plan_savepoint_create_service(open_table(str(path)), wanted, now())
    assert [a.target for a in create.actions] == [first, second]
    assert any("20000101000000000" in r for r in create.reasons)
    made = apply_savepoint_create_node(open_table(str(path)), wanted, create, plan_id="p1")
    assert [i.timestamp for i in made.created] == [first, second]
    assert made.refused == {}
    again = apply_savepoint_create_node(open_table(str(path)), wanted, create, plan_id="p1")
    assert again.created == ()
    assert again.refused == {
        t: f"{t} already has a savepoint (made by another writer since the plan)" for t in (first, second)
    }

    fewer = spec(path, savepoints=SavepointsSpec(instants=(second,)))
    delete = plan_savepoint_delete_service(open_table(str(path)), fewer, now())
    assert [a.target for a in delete.actions] == [first]
    apply_savepoint_delete_node(open_table(str(path)), fewer, delete, now())
    savepoints = open_table(str(path)).snapshot.timeline.of_action(Action.SAVEPOINT)
    assert [s.timestamp for s in savepoints] == [second]
    blocked = plan_savepoint_create_service(
        open_table(str(path)), spec(path, savepoints=SavepointsSpec(instants=("20000101000000000",))), now()
    )
    assert blocked.status is NodeStatus.BLOCKED


def test_an_approved_rolling_savepoint_is_made_after_a_newer_commit_lands(tmp_path: Path) -> None:
    """The plan approved a savepoint at the then-latest commit; a newer commit since (this plan's
    compaction, say) does not make it invalid: the approved instant is savepointed."""
    path = tmp_path / "t"
    table = generate(
        str(path), DatagenSpec("t", "cow", 6, WorkloadSpec(partitions=1, commits=3, rows_per_commit=4))
    )
    newest = path / ".hoodie" / f"{table.completed[-1]}.commit"
    hidden = newest.read_bytes()
    newest.unlink()  # the plan sees the second commit as the latest
    wanted = spec(path, savepoints=SavepointsSpec(rolling=RollingSavepoints(every=timedelta(hours=1))))
    create = plan_savepoint_create_service(open_table(str(path)), wanted, now())
    assert [a.target for a in create.actions] == [table.completed[1]]
    newest.write_bytes(hidden)

    made = apply_savepoint_create_node(open_table(str(path)), wanted, create, plan_id="p1")
    assert [i.timestamp for i in made.created] == [table.completed[1]]


def test_created_savepoints_record_the_plan_id(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = generate(
        str(path), DatagenSpec("t", "cow", 8, WorkloadSpec(partitions=1, commits=2, rows_per_commit=4))
    )
    wanted = spec(path, savepoints=SavepointsSpec(instants=(table.completed[0],)))
    create = plan_savepoint_create_service(open_table(str(path)), wanted, now())
    apply_savepoint_create_node(open_table(str(path)), wanted, create, plan_id="abc123")
    loaded = open_table(str(path))
    (savepoint,) = loaded.snapshot.timeline.savepoints()
    data = (path / loaded.snapshot.timeline.file_path(savepoint)).read_bytes()
    metadata = payloads.decode_savepoint_metadata(data, "savepoint")
    assert metadata is not None and metadata.comments == "maintainer.plan_id=abc123"


def test_rollback_and_savepoint_nodes_time_their_instants_by_the_given_clock(tmp_path: Path) -> None:
    """Apply's nodes take their instant times from the runner's clock (``NodeContext.clock``),
    never the wall clock: the rollback instant, and the savepoint's completion time and
    ``savepointedAt``."""
    path = tmp_path / "t"
    written, applied = datetime(2026, 4, 1, tzinfo=timezone.utc), datetime(2026, 4, 2, tzinfo=timezone.utc)
    workload = WorkloadSpec(partitions=1, commits=3, rows_per_commit=4)
    table = generate(
        str(path), DatagenSpec("t", "cow", 8, workload, failed_write=True), clock=lambda: written
    )
    table_spec = spec(
        path,
        rollback=RollbackSpec(min_age=timedelta(0)),
        savepoints=SavepointsSpec(instants=(table.completed[0],)),
    )
    rollback = plan_rollback_service(open_table(str(path)), table_spec, applied)
    (outcome,) = apply_rollback_node(
        open_table(str(path)), table_spec, rollback, applied, clock=lambda: applied
    )
    assert outcome.rollback_instant is not None
    assert outcome.rollback_instant.timestamp == "20260402000000000"

    create = plan_savepoint_create_service(open_table(str(path)), table_spec, applied)
    apply_savepoint_create_node(open_table(str(path)), table_spec, create, clock=lambda: applied)
    timeline = open_table(str(path)).snapshot.timeline
    (savepoint,) = timeline.savepoints()
    assert (savepoint.completion_time or "").startswith("2026040200000000")  # after the rollback's
    data = open_table(str(path)).storage.read_bytes(timeline.file_path(savepoint))
    metadata = payloads.decode_savepoint_metadata(data, "savepoint")
    assert metadata is not None and metadata.savepointed_at == int(applied.timestamp() * 1000)
