"""The whole plan is checked before its first node: paths, names, instants, payloads."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from maintainer.artifact.directory import SavedPlan, read_plan, write_plan
from maintainer.artifact.model import (
    ArchiveInstant,
    DeleteFile,
    NodePlan,
    NodeStatus,
    RollbackAction,
    RollbackRequestRecord,
)
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import PlanError
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.runner.plan_checks import plan_problems, validate_plan
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.common.checks import data_file_problem, instant_problem, relative_path_problem


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> SavedPlan:
    """A real plan (clean and archive of a generated COW table), as apply reads it."""
    root = tmp_path_factory.mktemp("validate")
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=8, rows_per_commit=5, seed=4)
    generate(str(root / "t"), DatagenSpec("t", "cow", 6, workload))
    archive = ArchiveSpec(keep_min_commits=2, keep_max_commits=3)
    spec = TableSpec.of(name="t", path=str(root / "t"), manifest="tables/t.yml", line=1,
                     clean=CleanSpec(commits_retained=1), archive=archive)  # fmt: skip
    request = TableRequest(spec, ("clean", "archive"))
    built = build_plan("proj", "dev", [request], {}, datetime.now(timezone.utc))
    assert not built.errors, built.errors
    write_plan(root / "plan", built.plan, built.payloads, "review", {})
    return read_plan(root / "plan")


def node_of(saved: SavedPlan, service: str) -> NodePlan:
    (node,) = [n for n in saved.plan.nodes() if n.service == service]
    assert node.status is NodeStatus.CHANGES and node.actions
    return node


def with_node(saved: SavedPlan, node: NodePlan) -> SavedPlan:
    (table,) = saved.plan.tables
    nodes = tuple(node if n.service == node.service else n for n in table.nodes)
    return replace(saved, plan=replace(saved.plan, tables=(replace(table, nodes=nodes),)))


def edit_first(saved: SavedPlan, service: str, kind: str, target: str) -> SavedPlan:
    node = node_of(saved, service)
    index = next(i for i, a in enumerate(node.actions) if a.kind == kind)
    actions = list(node.actions)
    edited = actions[index]
    assert isinstance(edited, (DeleteFile, ArchiveInstant))
    actions[index] = replace(edited, target=target)
    return with_node(saved, replace(node, actions=tuple(actions)))


def test_the_plan_as_made_passes(saved: SavedPlan) -> None:
    assert plan_problems(saved) == []
    validate_plan(saved)


@pytest.mark.parametrize(
    ("service", "kind", "target", "reason"),
    [
        ("clean", "delete_file", "../victim/city=a/f1_1-0-1_20240101000000.parquet", "outside the table"),
        ("clean", "delete_file", "/elsewhere/city=a/f1_1-0-1_20240101000000.parquet", "outside the table"),
        ("clean", "delete_file", "file:/elsewhere/f1_1-0-1_20240101000000.parquet", "outside the table"),
        ("clean", "delete_file", "city=city_0000/notes.txt", "not a Hudi data file"),
        ("clean", "delete_file", ".hoodie/hoodie.properties", "inside .hoodie/"),
        ("archive", "archive_instant", "2024../../x", "not an instant time"),
    ],
)
def test_an_edited_later_node_is_named_with_its_action_path_and_reason(
    saved: SavedPlan, service: str, kind: str, target: str, reason: str
) -> None:
    edited = edit_first(saved, service, kind, target)
    # (an edited clean also no longer builds its payload: that is a second problem)
    (problem,) = [p for p in plan_problems(edited) if not p.action.startswith("payload ")]
    assert (problem.node, problem.path) == (f"t.{service}", target) and reason in problem.reason
    with pytest.raises(PlanError, match="refused before any node runs, no table was touched") as refused:
        validate_plan(edited)
    assert f"node t.{service}, action {kind} {target}" in str(refused.value)
    assert refused.value.hint is not None and "make the plan again" in refused.value.hint


def test_payload_bytes_must_be_what_the_node_body_builds(saved: SavedPlan) -> None:
    (name,) = node_of(saved, "clean").payloads
    forged = replace(saved, payloads={**saved.payloads, name: saved.payloads[name] + b"x"})
    (problem,) = plan_problems(forged)
    assert problem.action == f"payload {name}" and "does not match" in problem.reason
    node = node_of(saved, "clean")
    dropped = tuple(a for a in node.actions if a != node.actions_of(DeleteFile)[0])
    body_edited = with_node(saved, replace(node, actions=dropped))
    assert any("does not match" in p.reason for p in plan_problems(body_edited))


def test_a_rollback_request_outside_the_table_or_of_another_instant_is_refused(saved: SavedPlan) -> None:
    (table,) = saved.plan.tables
    target = "20240101000000000"
    request = RollbackRequestRecord(
        partition="p", file_id="f1", latest_base_instant="", log_blocks_to_be_deleted={},
        files_to_be_deleted=(f"{table.path}/../victim/p/f1_1-0-1_{target}.parquet",
                             f"{table.path}/p/f1_1-0-1_20230101000000000.parquet"),
    )  # fmt: skip
    action = RollbackAction(
        kind="rollback", target=target, reason="failed write", action="commit", state="INFLIGHT",
        source="markers", delete_files=(), rollback_blocks_for=(), rollback_instant=None, requests=(request,),
    )  # fmt: skip
    node = NodePlan(table="t", service="rollback", status=NodeStatus.CHANGES, actions=(action,))
    edited = replace(saved, plan=replace(saved.plan, tables=(replace(table, nodes=(node,)),)))
    reasons = sorted(p.reason for p in plan_problems(edited))
    assert reasons[0].startswith("not a file of the rolled-back instant")
    assert "outside the table" in reasons[1]


def test_an_unknown_service_or_action_and_a_foreign_table_are_refused(saved: SavedPlan) -> None:
    (table,) = saved.plan.tables
    delete = DeleteFile(target="p/x.parquet", reason="x", size=1, partition="p")
    foreign = NodePlan(table="t", service="vacuum", status=NodeStatus.CHANGES, actions=(delete,))
    odd = replace(node_of(saved, "archive"), actions=(delete,))
    edited = replace(saved, plan=replace(saved.plan, tables=(replace(table, nodes=(foreign, odd)),)))
    reasons = {p.reason for p in plan_problems(edited)}
    assert {"not a service this maintainer applies", "not an action of the archive service"} <= reasons
    spec = TableSpec.of(name="t", path="/elsewhere", manifest="m.yml", line=1)
    moved = [p.reason for p in plan_problems(saved, {"t": spec})]
    assert moved == ["the project has the table at /elsewhere"]
    assert [p.reason for p in plan_problems(saved, {})] == ["not a table of the project"]


def test_single_value_checks() -> None:
    assert relative_path_problem("city=a/b") is None and relative_path_problem("a//b") is not None
    assert relative_path_problem("s3://bucket/t/p") is not None and relative_path_problem("") == "not a path"
    assert data_file_problem(".f1_20240101000000.log.1_0-1-1") is None
    assert data_file_problem("p/f1_0-1-1_20240101000000.parquet") is None
    assert instant_problem("20240101000000") is None and instant_problem("20240101000000123") is None
    assert instant_problem(None) is not None and instant_problem("2024") is not None
