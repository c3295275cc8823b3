"""schemas/plan.v<N>.json: generated from the plan model, checked in, and every real plan
(each service's node, changes and blocked) satisfies it; a plan edited out of shape does not."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from maintainer.artifact.directory import write_plan
from maintainer.artifact.plan_schema import PLAN_SCHEMA_FILE, plan_schema
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.project.project_schema import schema_text
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.savepoint.settings import SavepointsSpec
from tests.support.artifacts import SCHEMAS, plan_json

SERVICES = ("rollback", "compaction", "savepoint_create", "clean", "archive", "savepoint_delete")


def test_the_checked_in_schema_is_current() -> None:
    """Regenerate with: python -c 'from pathlib import Path; from maintainer.artifact.plan_schema import
    PLAN_SCHEMA_FILE, plan_schema; from maintainer.project.project_schema import schema_text;
    Path("schemas", PLAN_SCHEMA_FILE).write_text(schema_text(plan_schema()))'"""
    assert (SCHEMAS / PLAN_SCHEMA_FILE).read_text(encoding="utf-8") == schema_text(plan_schema())


@pytest.fixture(scope="module")
def plan_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plan with every service: a MOR table with a failed write and log files (rollback,
    compaction, clean, archive nodes with changes), a savepoint to create on another table, and
    an unreadable table (blocked)."""
    root = tmp_path_factory.mktemp("schema")
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=9, rows_per_commit=6, seed=2)
    generate(str(root / "t"), DatagenSpec("t", "mor", 8, workload, failed_write=True))
    spec = TableSpec.of(
        name="t", path=str(root / "t"), manifest="tables/t.yml", line=1,
        rollback=RollbackSpec(min_age=timedelta(0)),
        compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)),
        clean=CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1),
        archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3),
    )  # fmt: skip
    other = generate(str(root / "s"), DatagenSpec("s", "cow", 6, WorkloadSpec(commits=3, rows_per_commit=4)))
    savepointed = TableSpec.of(name="s", path=str(root / "s"), manifest="tables/s.yml", line=1,
                            savepoints=SavepointsSpec(instants=(other.completed[-1],)))  # fmt: skip
    missing = TableSpec.of(name="gone", path=str(root / "gone"), manifest="tables/gone.yml", line=1)
    requests = [
        TableRequest(spec, SERVICES),
        TableRequest(savepointed, ("savepoint_create",)),
        TableRequest(missing, ("clean",)),
    ]
    built = build_plan("proj", "dev", requests, {}, datetime.now(timezone.utc))
    write_plan(root / "plan", built.plan, built.payloads, "review", {})
    return root / "plan"


def test_a_real_plan_with_every_service_satisfies_the_schema(plan_dir: Path) -> None:
    data = plan_json(plan_dir)  # validates
    nodes = {n["service"]: n for t in data["tables"] for n in t["nodes"] if t["name"] == "t"}
    assert set(nodes) == set(SERVICES)
    kinds = {a["kind"] for t in data["tables"] for n in t["nodes"] for a in n["actions"]}
    assert {"rollback", "compact_slice", "create_savepoint", "delete_file", "archive_instant"} <= kinds
    (gone,) = [t for t in data["tables"] if t["name"] == "gone"]
    assert [n["status"] for n in gone["nodes"]] == ["blocked"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda a: a.update(kind="rm_rf"),
        lambda a: a.update(unexpected=1),
        lambda a: a.pop("reason"),
        lambda a: a.update(reason=7),
    ],
    ids=["unknown-kind", "unknown-field", "missing-field", "wrong-type"],
)
def test_an_action_out_of_shape_fails_the_schema(plan_dir: Path, edit: Any) -> None:
    data = json.loads((plan_dir / "plan.json").read_text(encoding="utf-8"))
    (node,) = [n for t in data["tables"] for n in t["nodes"] if n["service"] == "clean" and n["actions"]]
    edit(node["actions"][0])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, plan_schema())
