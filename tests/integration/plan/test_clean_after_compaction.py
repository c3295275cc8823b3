"""The clean planned after this plan's compaction (on the projected table) is the clean that
would be planned on the table once the compaction has really run.

Two copies of one generated merge-on-read table (v6 and v8; on v8 with an earlier compaction,
so file groups have several slices): on copy A one plan has compaction then clean; on copy B
the same compaction runs for real, then a clean-only plan is made. Both cleans must delete
the same files and record the same retention point, the projected compaction instant
standing for B's real one. Also with a pending compaction the plan executes (no new one).
"""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import CompactSlice, NodePlan, NodeStatus
from maintainer.datagen.generator import LOCAL_WRITERS, DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.compaction.executor import run_compaction
from maintainer.executors.savepoint import create_savepoint
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.node import plan_compaction_node
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.services.rollback.apply import apply_rollback_node
from maintainer.services.rollback.node import plan_rollback_service
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.savepoint.settings import SavepointsSpec
from tests.support.compaction import CompactingWriter, schedule_compaction
from tests.support.plans import clean_effect_of, files_to_delete

CLEANS = {
    "versions_1": CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1),
    "versions_2": CleanSpec(policy="keep_latest_file_versions", file_versions_retained=2),
    "commits_1": CleanSpec(commits_retained=1),
    "commits_3": CleanSpec(commits_retained=3),
}
EVERY_COMMIT = CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1))


def now() -> datetime:
    return datetime.now(timezone.utc)


def table_with_history(root: Path, version: int) -> Path:
    """Two partitions, two file groups each, 8 commits; on v8 compacted before commit 4 (on v6
    a writer cannot compact while a commit is inflight: Hudi's scheduling rule)."""
    path = root / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=8, rows_per_commit=40, seed=version)
    runner = CompactingWriter(path, 4) if version == 8 else LOCAL_WRITERS
    generate(str(path), DatagenSpec("t", "mor", version, workload), runner=runner)
    return path


def spec(path: Path, clean: CleanSpec) -> TableSpec:
    return TableSpec.of(name="t", path=str(path), manifest="tables/t.yml", line=1,
                     compaction=EVERY_COMMIT, clean=clean)  # fmt: skip


def plan_nodes(path: Path, clean: CleanSpec, services: tuple[str, ...]) -> dict[str, NodePlan]:
    request = TableRequest(spec(path, clean), services)
    built = build_plan("p", "dev", [request], {}, datetime.now(timezone.utc))
    assert not built.errors
    return {node.service: node for node in built.plan.tables[0].nodes}


def compact_for_real(path: Path) -> str:
    """What the plan's compaction node does at apply: the same slices, a fresh instant."""
    table = open_table(str(path))
    result = plan_compaction_node(table, spec(path, CleanSpec()), datetime.now(timezone.utc))
    plan = build_compaction_plan(result.operations, "test")
    run_compaction(table.storage, table.snapshot.config, result.instant_time, plan)
    return result.instant_time


def retention(node: NodePlan, projected: str | None, real: str | None) -> tuple[Any, ...]:
    def resolve(value: Any) -> Any:
        return real if projected is not None and value == projected else value

    effect = clean_effect_of(node)
    return (
        resolve(effect.earliest_commit_to_retain),
        effect.earliest_commit_to_retain_action,
        resolve(effect.last_completed_commit),
        effect.policy,
    )


def deletions(node: NodePlan) -> set[str]:
    return files_to_delete(node)


@pytest.mark.parametrize("version", [6, 8])
@pytest.mark.parametrize("clean_name", sorted(CLEANS))
def test_the_projected_clean_is_the_clean_after_the_real_compaction(
    tmp_path: Path, version: int, clean_name: str
) -> None:
    clean = CLEANS[clean_name]
    planned_on = table_with_history(tmp_path / "a", version)
    compacted = tmp_path / "b" / "t"
    shutil.copytree(planned_on, compacted)

    nodes = plan_nodes(planned_on, clean, ("compaction", "clean"))
    assert nodes["compaction"].status is NodeStatus.CHANGES
    (projected,) = clean_effect_of(nodes["clean"]).projected_instants

    real = compact_for_real(compacted)
    after = plan_nodes(compacted, clean, ("clean",))["clean"]

    assert deletions(nodes["clean"]) == deletions(after)
    assert retention(nodes["clean"], projected, real) == retention(after, None, None)
    if clean_name == "versions_1":
        compacted_slices = nodes["compaction"].actions_of(CompactSlice)
        superseded = {f"{a.partition}/{a.base_file.name}" for a in compacted_slices if a.base_file}
        assert superseded <= deletions(nodes["clean"]), "the compacted slices' base files go"


@pytest.mark.parametrize("version", [6, 8])
def test_a_pending_compaction_the_plan_executes_is_projected_too(tmp_path: Path, version: int) -> None:
    clean = CLEANS["versions_1"]
    planned_on = table_with_history(tmp_path / "a", version)
    pending = schedule_compaction(planned_on)
    compacted = tmp_path / "b" / "t"
    shutil.copytree(planned_on, compacted)

    nodes = plan_nodes(planned_on, clean, ("compaction", "clean"))
    assert [a.target for a in nodes["compaction"].actions] == [pending]
    assert f"compaction: pending compaction {pending} executed" in nodes["clean"].reasons[0]
    assert clean_effect_of(nodes["clean"]).projected_instants == ()

    table = open_table(str(compacted))
    run_compaction(table.storage, table.snapshot.config, pending)
    after = plan_nodes(compacted, clean, ("clean",))["clean"]
    assert deletions(nodes["clean"]) == deletions(after) and deletions(after)
    assert retention(nodes["clean"], None, None) == retention(after, None, None)


def test_without_a_compaction_to_run_the_clean_is_planned_on_the_table_as_read(tmp_path: Path) -> None:
    path = table_with_history(tmp_path, 8)
    compact_for_real(path)
    nodes = plan_nodes(path, CLEANS["commits_1"], ("compaction", "clean"))
    assert nodes["compaction"].status is NodeStatus.NO_OP
    assert clean_effect_of(nodes["clean"]).projected_instants == ()
    assert "planned on the table as it will be" not in nodes["clean"].reasons[0]


@pytest.mark.parametrize("version", [6, 8])
def test_a_savepoint_the_plan_creates_keeps_its_files_from_the_planned_clean(
    tmp_path: Path, version: int
) -> None:
    clean = CLEANS["versions_1"]
    planned_on = table_with_history(tmp_path / "a", version)
    savepointed = open_table(str(planned_on)).snapshot.timeline.completed_commits()[-3].timestamp
    with_savepoint = spec(planned_on, clean).model_copy(
        update={"savepoints": SavepointsSpec(instants=(savepointed,))}
    )
    created = tmp_path / "b" / "t"
    shutil.copytree(planned_on, created)

    request = TableRequest(with_savepoint, ("compaction", "savepoint_create", "clean"))
    built = build_plan("p", "dev", [request], {}, datetime.now(timezone.utc))
    nodes = {node.service: node for node in built.plan.tables[0].nodes}
    assert [a.target for a in nodes["savepoint_create"].actions] == [savepointed]
    assert f"savepoint(s) {savepointed}" in nodes["clean"].reasons[0]

    compact_for_real(created)
    create_savepoint(open_table(str(created)), savepointed)
    after = plan_nodes(created, clean, ("clean",))["clean"]
    assert deletions(nodes["clean"]) == deletions(after)
    savepointed_then = clean_effect_of(nodes["clean"]).savepointed_timestamps
    assert savepointed_then == clean_effect_of(after).savepointed_timestamps
    without = plan_nodes(planned_on, clean, ("compaction", "clean"))["clean"]
    assert deletions(nodes["clean"]) < deletions(without), "the savepoint keeps files the clean would delete"


def operations_of(node: NodePlan) -> list[tuple[Any, ...]]:
    return sorted(
        ((op.partition, op.file_id, op.base_file, op.log_files) for op in node.actions_of(CompactSlice)),
        key=lambda op: (op[0], op[1]),
    )


@pytest.mark.parametrize("version", [6, 8])
def test_the_compaction_after_the_projected_rollback_is_the_compaction_after_the_real_one(
    tmp_path: Path, version: int
) -> None:
    """On v6 the rollback appends command blocks in new log files, which the projection
    predicts (name and size): the compaction approved on it is the one planned after the real
    rollback, and so is the clean after both."""
    clean = CLEANS["versions_1"]
    planned_on = tmp_path / "a" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=6, rows_per_commit=40, seed=version)
    generate(str(planned_on), DatagenSpec("t", "mor", version, workload, failed_write=True))
    rolled_back = tmp_path / "b" / "t"
    shutil.copytree(planned_on, rolled_back)
    now_spec = spec(planned_on, clean).model_copy(update={"rollback": RollbackSpec(min_age=timedelta(0))})

    built = build_plan("p", "dev", [TableRequest(now_spec, ("rollback", "compaction", "clean"))], {}, now())
    nodes = {node.service: node for node in built.plan.tables[0].nodes}
    assert nodes["rollback"].status is NodeStatus.CHANGES and nodes["compaction"].status is NodeStatus.CHANGES

    table = open_table(str(rolled_back))
    real_spec = now_spec.model_copy(update={"path": str(rolled_back)})
    rollback = plan_rollback_service(table, real_spec, now())
    assert apply_rollback_node(table, real_spec, rollback, now())
    after = plan_nodes(rolled_back, clean, ("compaction", "clean"))
    assert operations_of(nodes["compaction"]) == operations_of(after["compaction"])

    compact_for_real(rolled_back)
    cleaned = plan_nodes(rolled_back, clean, ("clean",))["clean"]
    assert deletions(nodes["clean"]) == deletions(cleaned)
