"""Adding a service is one declaration and one ``TableService``, with no other module edited:
a read-only ``touch`` service defined here (it plans one action per table: count the completed
instants), registered for the test, is accepted in a manifest block and in the project files'
schemas, has its settings' rule checked where the block is written, planned through the CLI
on a generated table, validated, rendered in plan.md, classified by the review, summarised by
apply, and present in the plan's schema and, with the effects its apply declares, in the run
results' schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

import jsonschema
import pytest

from maintainer.artifact.directory import PLAN_FILE, read_plan
from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.artifact.model.records import PlanRecord
from maintainer.artifact.plan_schema import plan_schema
from maintainer.catalog import ActionLabel, ChangeKind, RuleBreach, ServiceDeclaration, SummaryPart, installed
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.graph.manifest_schema import manifest_json_schema
from maintainer.hudi.table.state import TableState
from maintainer.planning.changes import compare_specs
from maintainer.project.models import TableSpec
from maintainer.project.project_schema import generate_schemas
from maintainer.project.settings_types import FrozenModel, PositiveInt
from maintainer.runner.plan_checks import plan_problems
from maintainer.runner.results import RUN_RESULTS_FILE
from maintainer.runner.results_schema import RUN_RESULTS_SCHEMA_FILE, run_results_schema
from maintainer.services.base import ApplyEffects, Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.common.change_rules import less_is_destructive, switched_on
from maintainer.services.common.summary_parts import counted
from maintainer.services.registry import registered
from tests.support import artifacts
from tests.support.metadata_tables import Project


@dataclass(frozen=True, slots=True, kw_only=True)
class TouchTable(PlanRecord):
    """Count the table's completed instants (``target``: the table)."""

    kind: Literal["touch_table"] = "touch_table"
    target: str
    reason: str
    instants: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TouchEffect(PlanRecord):
    kind: Literal["touch"] = "touch"
    instants: int


class TouchApplyEffects(ApplyEffects):
    """What a touch node's apply did."""

    tables_touched: int
    """Tables looked at."""


class TouchSettings(FrozenModel):
    """Look at the table (changes nothing)."""

    enabled: bool = True
    min_instants: PositiveInt = 1
    """Touch only tables with at least this many completed instants."""
    max_instants: PositiveInt | None = None
    """Touch only tables with at most this many completed instants."""


def touch_rules(spec: TableSpec) -> list[RuleBreach]:
    settings = spec.settings_of(TouchSettings)
    if settings is None or settings.max_instants is None or settings.max_instants >= settings.min_instants:
        return []
    return [
        RuleBreach(
            f"touch.max_instants ({settings.max_instants}) is below "
            f"touch.min_instants ({settings.min_instants})",
            f"raise max_instants to at least {settings.min_instants}",
            (("touch", "max_instants"), ("touch",)),
        )
    ]


DECLARATION = ServiceDeclaration(
    "touch",
    "touch",
    (ActionLabel("touch_table", "table to touch", "tables to touch", 40),),
    settings=TouchSettings,
    table_rules=touch_rules,
    records=(TouchTable,),
    effect=TouchEffect,
    apply_effects=TouchApplyEffects,
    change_rules={"enabled": switched_on("touch"), "min_instants": less_is_destructive("instants needed")},
    summary=(SummaryPart(40, counted("tables_touched", int, "table", "touched")),),
)


class TouchService(ServiceDefaults):
    declaration = DECLARATION

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        settings = spec.settings_of(TouchSettings) or TouchSettings()
        instants = len(table.snapshot.timeline.completed())
        if instants < settings.min_instants:
            return NodePlan(table=spec.name, service="touch", status=NodeStatus.NO_OP, reasons=("too young",))
        action = TouchTable(target=spec.path, reason=f"{instants} completed instants", instants=instants)
        return NodePlan(
            table=spec.name,
            service="touch",
            status=NodeStatus.CHANGES,
            actions=(action,),
            effect=TouchEffect(instants=instants),
        )

    def validate(self, node: NodePlan, table_uri: str) -> Iterator[Check]:
        for action in node.actions_of(TouchTable):
            yield "instants", action.instants, None if action.instants > 0 else "a table touched has instants"

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return NodeOutcome(TouchApplyEffects(tables_touched=len(ctx.node.actions)), message="1 table touched")


@pytest.fixture
def touch() -> Iterator[None]:
    before = installed()
    with registered(TouchService()):
        yield
    assert installed() is before


@pytest.fixture
def touched(touch: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A generated copy-on-write table maintained by a project with only the touch service."""
    from maintainer.cli import main

    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=10, seed=5)
    generate(str(table), DatagenSpec("t", "cow", 8, workload))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    project = Project(root, table)
    write_manifest(project, "touch: {min_instants: 2}")
    return project


def write_manifest(project: Project, touch: str) -> None:
    off = "rollback: {enabled: false}, compaction: {enabled: false}, clean: {enabled: false}, "
    off += "metadata: {enabled: false}, archive: {enabled: false}"
    (project.root / "tables" / "example.yml").write_text(
        f"version: 1\ntables:\n  - {{name: t, path: {project.table}, {off}, {touch}}}\n"
    )


def test_the_block_is_in_the_project_files_schemas_and_manifest_json_s(touch: None) -> None:
    schemas = generate_schemas()
    entry = schemas["manifest.schema.json"]["$defs"]["TableEntry"]["properties"]
    assert "touch" in entry and "TouchSettings" in schemas["manifest.schema.json"]["$defs"]
    assert "touch" in schemas["defaults.schema.json"]["properties"]
    assert "touch" in json.dumps(schemas["maintainer_project.schema.json"])
    assert "touch" in json.dumps(manifest_json_schema())


def test_the_plan_schema_holds_its_action_and_effect(touch: None) -> None:
    defs = plan_schema()["$defs"]
    assert {"TouchTable", "TouchEffect"} <= set(defs)


def test_a_wrong_setting_is_refused_where_it_is_written(
    touched: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(touched, "touch: {min_instants: 0}")
    assert touched.cli("validate") != 0
    err = capsys.readouterr().err
    assert "min_instants" in err and "tables/example.yml" in err


def test_its_table_rule_is_checked_and_blames_the_line_written(
    touched: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(touched, "touch: {min_instants: 3, max_instants: 2}")
    assert touched.cli("validate") != 0
    err = capsys.readouterr().err
    line = (touched.root / "tables" / "example.yml").read_text().splitlines()[2]
    column = line.index("max_instants: 2") + len("max_instants: ") + 1
    assert (
        f"tables/example.yml:3:{column}: table 't': touch.max_instants (2) is below touch.min_instants (3)"
        in err
    )
    assert "raise max_instants to at least 3" in err
    write_manifest(touched, "touch: {min_instants: 3, max_instants: 3}")
    assert touched.cli("validate") == 0


def test_planned_validated_rendered_applied_and_summarised_through_the_cli(
    touched: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert touched.cli("plan") == 0
    plan_dir = touched.root / "target" / "plan"
    plan = json.loads((plan_dir / PLAN_FILE).read_text(encoding="utf-8"))
    jsonschema.validate(plan, plan_schema())
    (node,) = [n for t in plan["tables"] for n in t["nodes"]]
    assert (node["service"], node["status"]) == ("touch", "changes")
    assert node["actions"][0]["kind"] == "touch_table" and node["effect"] == {"kind": "touch", "instants": 3}
    assert "1 table to touch" in (plan_dir / "plan.md").read_text(encoding="utf-8")

    saved = read_plan(plan_dir)
    assert plan_problems(saved) == []
    (table,) = saved.plan.tables
    bad = replace(table.nodes[0], actions=(TouchTable(target="t", reason="r", instants=0),))
    emptied = replace(saved, plan=replace(saved.plan, tables=(replace(table, nodes=(bad,)),)))
    assert [p.reason for p in plan_problems(emptied)] == ["a table touched has instants"]

    capsys.readouterr()
    assert touched.cli("apply") == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "Apply complete: 1 table touched."
    results = json.loads((touched.root / "target" / RUN_RESULTS_FILE).read_text(encoding="utf-8"))
    assert results["results"][0]["adapter_response"] == {"tables_touched": 1}
    jsonschema.validate(results, run_results_schema())  # the schema with the touch service's effects
    with pytest.raises(jsonschema.ValidationError):  # the checked-in one, of the real services, has not
        jsonschema.validate(results, artifacts.schema(RUN_RESULTS_SCHEMA_FILE))


def test_its_apply_effects_are_in_the_run_results_schema(touch: None) -> None:
    schema = run_results_schema()
    assert schema["$defs"]["TouchApplyEffects"]["properties"]["tables_touched"]["type"] == "integer"
    response = schema["$defs"]["NodeResultOutput"]["properties"]["adapter_response"]
    assert {"$ref": "#/$defs/TouchApplyEffects"} in response["anyOf"]


def test_the_review_classifies_its_settings_by_its_rules(touch: None) -> None:
    base = {"name": "t", "path": "/t", "manifest": "tables/t.yml", "line": 1}
    (change,) = compare_specs(
        {"t": {**base, "touch": {"min_instants": 3}}}, {"t": {**base, "touch": {"min_instants": 1}}}
    )
    assert (change.option, change.kind, change.why) == (
        "touch.min_instants",
        ChangeKind.DESTRUCTIVE,
        "less instants needed",
    )
