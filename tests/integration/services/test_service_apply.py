"""The runner entry points of rollback, archive and savepoint nodes (services/service_apply.py):
refusals before anything is written (tampered payload, unexpected metadata table) and the
outcome they report."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from maintainer.artifact.model import NodePlan, RollbackAction, RollbackEffect
from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import ApplyError, PlanError
from maintainer.hudi.table.state import open_table
from maintainer.project.models import TableSpec
from maintainer.services.archive.apply import execute_archive
from maintainer.services.archive.node import plan_archive_service
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.base import NodeContext
from maintainer.services.rollback.apply import execute_rollback
from maintainer.services.rollback.effects import RollbackApplyEffects
from maintainer.services.rollback.node import plan_rollback_service, rollback_payloads
from maintainer.services.rollback.settings import RollbackSpec
from tests.support.plans import NO_FINGERPRINT, table_plan


def now() -> datetime:
    return datetime.now(timezone.utc)


def table_spec(path: Path) -> TableSpec:
    return TableSpec.of(name="t", path=str(path), manifest="tables/t.yml", line=1,
                     rollback=RollbackSpec(min_age=timedelta(0)),
                     archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3))  # fmt: skip


def context(path: Path, node: NodePlan, payloads: dict[str, bytes]) -> NodeContext:
    table = table_plan("t", (node,), path=str(path), table_type="MERGE_ON_READ", fingerprint=NO_FINGERPRINT)
    return NodeContext("plan-id", table, node, table_spec(path), payloads, None)


def failed_write_table(path: Path) -> GeneratedTable:
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=5, rows_per_commit=6)
    return generate(str(path), DatagenSpec("t", "mor", 8, workload, failed_write=True))


def test_rollback_refuses_a_tampered_payload_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t"
    failed_write_table(path)
    node = plan_rollback_service(open_table(str(path)), table_spec(path), now())
    payloads = rollback_payloads(node, open_table(str(path)).storage, "plan-id")
    (name,) = payloads
    timeline_before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    with pytest.raises(PlanError, match="does not match the approved plan body"):
        execute_rollback(context(path, node, {name: payloads[name] + b"x"}))
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == timeline_before


def test_rollback_reports_what_it_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "t"
    generated = failed_write_table(path)
    node = plan_rollback_service(open_table(str(path)), table_spec(path), now())
    outcome = execute_rollback(
        context(path, node, rollback_payloads(node, open_table(str(path)).storage, "x"))
    )
    assert isinstance(outcome.effects, RollbackApplyEffects)
    assert outcome.effects.rolled_back == (generated.failed_instant,)
    assert outcome.drift == () and outcome.message == "1 rollback(s) done"


def test_archive_refuses_a_metadata_table_the_plan_does_not_drop(tmp_path: Path) -> None:
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=6, rows_per_commit=6)
    generate(str(path), DatagenSpec("t", "cow", 8, workload))
    node = plan_archive_service(open_table(str(path)), table_spec(path), now())
    mdt = path / ".hoodie" / "metadata" / ".hoodie"
    mdt.mkdir(parents=True)
    shutil.copy(path / ".hoodie" / "hoodie.properties", mdt / "hoodie.properties")
    with open(path / ".hoodie" / "hoodie.properties", "a", encoding="utf-8") as out:
        out.write("hoodie.table.metadata.partitions=files\n")
    with pytest.raises(ApplyError, match="metadata table"):
        execute_archive(context(path, node, {}))


@pytest.mark.parametrize(("kind", "version"), [("cow", 6), ("mor", 6), ("cow", 8), ("mor", 8)])
def test_an_unedited_rollback_is_carried_out_as_approved_with_no_drift(
    tmp_path: Path, kind: str, version: int
) -> None:
    """Apply re-derives the rollback from the table and keeps the intersection with the plan:
    for an unedited plan that is all of it, and the ``.rollback.requested`` written is the
    approved payload, byte for byte (v6 MOR: rollback blocks of older slices included)."""
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=5, rows_per_commit=8)
    generated = generate(str(path), DatagenSpec("t", kind, version, workload, failed_write=True))
    node = plan_rollback_service(open_table(str(path)), table_spec(path), now())
    payloads = rollback_payloads(node, open_table(str(path)).storage, "x")
    outcome = execute_rollback(context(path, node, payloads))
    assert isinstance(outcome.effects, RollbackApplyEffects)
    assert outcome.effects.rolled_back == (generated.failed_instant,)
    assert outcome.drift == ()
    assert isinstance(node.effect, RollbackEffect)
    assert outcome.effects.files_deleted == node.effect.files
    assert outcome.effects.bytes_deleted == node.effect.bytes  # as planned, in bytes too
    assert (node.effect.bytes > 0) == (node.effect.files > 0)  # v6 MOR: rollback blocks only
    (requested,) = [p for p in (path / ".hoodie").rglob("*.rollback.requested") if "archived" not in p.parts]
    (action,) = node.actions_of(RollbackAction)
    assert action.payload is not None and requested.read_bytes() == payloads[action.payload]
