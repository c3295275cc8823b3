"""The compaction node: planned from a manifest's settings into actions, effect and payload;
applied (in process, without the CLI) exactly as approved, with drift, pending compactions
executed first, an interrupted apply finished, and the metadata table dropped when approved."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import (
    CompactionEffect,
    CompactSlice,
    DropMetadataTable,
    ExecutePendingCompaction,
    NodePlan,
    NodeStatus,
)
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import ApplyError, PlanError
from maintainer.executors.compaction.executor import IN_PROCESS
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.base import NodeContext
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.services.compaction.apply import CompactionApply
from maintainer.services.compaction.effects import CompactionApplyEffects
from maintainer.services.compaction.node import compaction_payloads, plan_compaction_service
from maintainer.services.compaction.settings import CompactionSpec, CompactionStrategy, CompactionTrigger
from tests.support import fixtures as fx
from tests.support import oracle
from tests.support.plans import NO_FINGERPRINT, table_plan

PLAN_ID = "p" * 64
EVERY = CompactionSpec(
    trigger=CompactionTrigger(max_delta_commits=1), strategy=CompactionStrategy(name="unbounded")
)


def spec_for(path: Path, **options: Any) -> TableSpec:
    return TableSpec.of(
        name="trips", path=str(path), manifest="tables/trips.yml", line=1, compaction=EVERY, **options
    )


def generated(tmp_path: Path, version: int = 6) -> Path:
    path = tmp_path / "trips"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=4, rows_per_commit=100, update_ratio=0.5)
    generate(str(path), DatagenSpec("trips", "mor", version, workload))
    return path


def planned(path: Path, spec: TableSpec) -> tuple[NodePlan, dict[str, bytes]]:
    table = open_table(str(path))
    node = plan_compaction_service(table, spec, datetime.now(timezone.utc))
    return node, compaction_payloads(node, table.storage, PLAN_ID)


def context(path: Path, spec: TableSpec, node: NodePlan, blobs: dict[str, bytes]) -> NodeContext:
    table = table_plan(
        "trips", (node,), path=str(path), table_type="MERGE_ON_READ", fingerprint=NO_FINGERPRINT
    )
    return NodeContext(PLAN_ID, table, node, spec, blobs, spark=None)


def apply(path: Path, spec: TableSpec, node: NodePlan, blobs: dict[str, bytes]) -> Any:
    return CompactionApply(context(path, spec, node, blobs), IN_PROCESS).execute()


def test_node_lists_each_slice_with_its_files_bytes_and_reason(tmp_path: Path) -> None:
    path = generated(tmp_path)
    node, blobs = planned(path, spec_for(path))
    assert node.status is NodeStatus.CHANGES and node.id == "trips.compaction"
    slices = node.actions_of(CompactSlice)
    assert len(slices) == 2 and all(a.reason and a.log_files and a.input_bytes for a in slices)
    assert isinstance(node.effect, CompactionEffect)
    assert node.effect.slices == 2 and node.effect.input_bytes == sum(a.input_bytes for a in slices)
    (data,) = blobs.values()
    plan = payloads.decode_compaction_plan(data, "payload")
    assert (
        plan is not None and plan.extra_metadata == {PLAN_ID_KEY: PLAN_ID} and len(plan.operations or ()) == 2
    )
    assert compaction_payloads(node, open_table(str(path)).storage, PLAN_ID) == blobs  # deterministic


@pytest.mark.parametrize("version", [6, 8])
def test_apply_compacts_the_approved_slices(version: int, tmp_path: Path) -> None:
    path = generated(tmp_path, version)
    spec = spec_for(path)
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    node, blobs = planned(path, spec)
    outcome = apply(path, spec, node, blobs)
    assert outcome.effects.slices_compacted == 2 and not outcome.drift
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before
    assert oracle.snapshot_rows(path, read_optimized=True) == oracle.snapshot_rows(path)
    again = apply(path, spec, node, blobs)  # the slices are compacted now: drift, nothing done
    assert again.effects.compactions == () and len(again.drift) == 2


def test_tampered_payload_is_refused(tmp_path: Path) -> None:
    path = generated(tmp_path)
    spec = spec_for(path)
    node, blobs = planned(path, spec)
    tampered = {name: data[:-1] + b"x" for name, data in blobs.items()}
    with pytest.raises(PlanError, match="does not match"):
        apply(path, spec, node, tampered)


def test_a_slice_that_changed_since_the_plan_is_drift(tmp_path: Path) -> None:
    path = generated(tmp_path)
    spec = spec_for(path)
    node, _ = planned(path, spec)
    first = node.actions_of(CompactSlice)[0]
    shrunk = replace(first, log_files=first.log_files[:-1])  # as if a log file arrived after the plan
    changed = replace(node, actions=tuple(shrunk if a is first else a for a in node.actions))
    outcome = apply(path, spec, changed, compaction_payloads(changed, open_table(str(path)).storage, PLAN_ID))
    assert outcome.effects.slices_compacted == 1
    (drift,) = outcome.drift
    assert "log files" in drift.reason


def test_interrupted_apply_is_finished_by_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = generated(tmp_path)
    spec = spec_for(path)
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    node, blobs = planned(path, spec)
    monkeypatch.setenv(FAULT_ENV, "compaction:before_commit")
    with pytest.raises(InjectedFault):
        apply(path, spec, node, blobs)
    monkeypatch.delenv(FAULT_ENV)
    outcome = apply(path, spec, node, blobs)
    assert len(outcome.effects.compactions) == 1 and outcome.effects.rolled_back_files
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before


def test_pending_compaction_is_executed_first_and_a_foreign_one_refused(tmp_path: Path) -> None:
    path = generated(tmp_path)
    spec = spec_for(path)
    node, blobs = planned(path, spec)
    foreign = replace(node, payloads=(), actions=())
    apply(path, spec, foreign, {})  # nothing approved: nothing done
    # a compaction scheduled by someone else (no plan id) after the plan
    table = open_table(str(path))
    writer = TimelineWriter(table.storage, table.snapshot.config)
    plan = payloads.decode_compaction_plan(next(iter(blobs.values())), "p")
    assert plan is not None
    scheduled = writer.create_requested(
        Action.COMPACTION, payloads.encode_avro(replace(plan, extra_metadata={}))
    )
    with pytest.raises(ApplyError, match="pending in the table"):
        apply(path, spec, node, blobs)
    requested = table.storage.read_bytes(writer.timeline().file_path(scheduled, State.REQUESTED))
    unrecorded = ExecutePendingCompaction(target=scheduled.timestamp, reason="r")
    with pytest.raises(ApplyError, match="the plan does not record what the pending compaction"):
        apply(path, spec, replace(node, actions=(unrecorded, *node.actions)), blobs)
    edited = replace(unrecorded, sha256=hashlib.sha256(requested + b"x").hexdigest())
    with pytest.raises(ApplyError, match="was changed after the plan was made"):
        apply(path, spec, replace(node, actions=(edited, *node.actions)), blobs)
    reviewed = replace(unrecorded, sha256=hashlib.sha256(requested).hexdigest())
    approving = replace(node, actions=(reviewed, *node.actions))
    outcome = apply(path, spec, approving, blobs)
    assert outcome.effects.compactions[0] == scheduled.timestamp
    assert {d.reason for d in outcome.drift} == {
        "the file slice is no longer compactable (gone, replaced, or in another pending operation)"
    }


@pytest.mark.fixtures
def test_metadata_table_is_dropped_first_when_approved(
    fixture_copy: Callable[[str], fx.FixtureTable],
) -> None:
    path = fixture_copy("quickstart_trips_table_mor_avro_v8_trips_8i3u1d").path
    spec = spec_for(path, metadata_table="drop")
    node, blobs = planned(path, spec)
    with pytest.raises(ApplyError, match="metadata table"):
        apply(path, spec, node, blobs)
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    dropping = replace(node, actions=(DropMetadataTable(reason="r", partitions=("files",)), *node.actions))
    outcome = apply(path, spec, dropping, blobs)
    assert outcome.effects.metadata_table_dropped is not None and outcome.effects.slices_compacted == 1
    assert not (path / ".hoodie/metadata").exists()
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before


def test_node_survives_the_plan_directory_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from maintainer.artifact.directory import read_plan, write_plan
    from maintainer.planning.builder import TableRequest, build_plan
    from maintainer.services import registry

    assert registry.service_for("compaction") is not None
    path = generated(tmp_path)
    spec = spec_for(path)
    built = build_plan("demo", "dev", [TableRequest(spec, ("compaction",))], {}, datetime.now(timezone.utc))
    plan_id = write_plan(tmp_path / "plan", built.plan, built.payloads, "review", {})
    saved = read_plan(tmp_path / "plan")
    ((node,),) = [t.nodes for t in saved.plan.tables]
    assert node.status is NodeStatus.CHANGES and saved.plan_id == plan_id
    table = saved.plan.tables[0]
    ctx = NodeContext(saved.plan_id, table, node, spec, saved.payloads, spark=None)
    outcome = CompactionApply(ctx, IN_PROCESS).execute()
    assert isinstance(outcome.effects, CompactionApplyEffects)
    assert outcome.effects.slices_compacted == 2 and not outcome.drift


def test_a_pending_compaction_carrying_the_plan_id_is_checked_against_the_approved_slices(
    tmp_path: Path,
) -> None:
    """The plan id proves nothing: a ``.compaction.requested`` with it that drops a log file of an
    approved slice (its records would be lost from the new base file) is refused before anything
    is written; the bytes apply itself writes for the approved slices are resumed."""
    path = generated(tmp_path)
    spec = spec_for(path)
    node, blobs = planned(path, spec)
    approved = payloads.decode_compaction_plan(next(iter(blobs.values())), "p")
    assert approved is not None and approved.operations
    first = approved.operations[0]
    assert first.delta_file_paths and len(first.delta_file_paths) > 1
    dropped = replace(first, delta_file_paths=first.delta_file_paths[1:])
    forged = replace(approved, operations=(dropped, *approved.operations[1:]))
    table = open_table(str(path))
    writer = TimelineWriter(table.storage, table.snapshot.config)
    instant = writer.create_requested(Action.COMPACTION, payloads.encode_avro(forged))
    before = oracle.snapshot_rows(path, drop=["_hoodie_file_name"])
    files = sorted(p.name for p in path.rglob("*") if p.is_file())
    with pytest.raises(
        ApplyError, match=f"the pending compaction {instant.timestamp} carries this plan's id"
    ):
        apply(path, spec, node, blobs)
    assert sorted(p.name for p in path.rglob("*") if p.is_file()) == files
    requested = path / writer.timeline().file_path(instant, State.REQUESTED)
    requested.write_bytes(next(iter(blobs.values())))  # what apply writes for the approved slices
    outcome = apply(path, spec, node, blobs)
    assert outcome.effects.compactions == (instant.timestamp,)
    assert oracle.snapshot_rows(path, drop=["_hoodie_file_name"]) == before
