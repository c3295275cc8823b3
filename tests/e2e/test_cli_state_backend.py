"""The state backend through the CLI, on a local folder: partial applies (``--select``) keep
every other table's last applied manifest, so the next plan compares each table with what was
applied (not "a new table"); the run history; a profile target's ``state``; two applies racing
in two processes; an older maintainer's ``target/last_applied``; ``--state DIR``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from maintainer.commands.provenance import keep_applied_state
from maintainer.errors import StorageError
from maintainer.project.loader import load_project
from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from tests.support.state_projects import state_project


def state_of(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "last_applied" / "manifest.json").read_text())
    return data


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_two_partial_applies_leave_both_tables_in_the_state(tmp_path: Path) -> None:
    shared = tmp_path / "shared-state"
    project = state_project(tmp_path, str(shared))
    assert project.cli("apply", "--auto-approve", "--select", "a") == 0
    first = json.loads((project.root / "target" / "run_results.json").read_text())
    assert sorted(state_of(shared)["tables"]) == ["a"]
    assert project.cli("apply", "--auto-approve", "--select", "b") == 0
    state = state_of(shared)
    assert sorted(state["tables"]) == ["a", "b"]
    assert state["tables"]["a"]["applied"]["plan_id"] == first["plan_id"]
    assert state["applied"]["plan_id"] == state["tables"]["b"]["applied"]["plan_id"] != first["plan_id"]
    assert not (project.root / "target" / "last_applied").exists()  # the backend, not target/

    runs = sorted((shared / "runs").iterdir())
    assert len(runs) == 2
    recorded = json.loads((runs[0] / "run_results.json").read_text())
    assert recorded["plan_id"] == first["plan_id"]
    assert recorded["metadata"]["invocation_id"] == first["metadata"]["invocation_id"]
    figures = json.loads((runs[0] / "tables.json").read_text())
    assert list(figures) == ["a"] and figures["a"]["nodes"]["clean"] == "success"
    assert figures["a"]["effects"]["files_deleted"] > 0  # six commits, three retained

    project.retain("a", 2)
    assert project.cli("plan") == 0
    text = project.plan_md()
    assert (
        "`clean.commits_retained`: 3 → 2 | 1 table (`a`) | **destructive**: less retention (commits) |"
        in text
    )
    assert "a new table" not in text  # b was applied by the other partial apply


def test_a_profile_target_state_wins_over_the_project(tmp_path: Path) -> None:
    shared = tmp_path / "target-state"
    project = state_project(tmp_path, str(shared), in_profile=True)
    config = project.root / "maintainer_project.yml"
    config.write_text(config.read_text() + "state: project-state\n")
    assert project.cli("apply", "--auto-approve", "--select", "a") == 0
    assert sorted(state_of(shared)["tables"]) == ["a"]
    assert not (project.root / "project-state").exists()


def test_two_applies_racing_in_two_processes_lose_no_update(tmp_path: Path) -> None:
    project = state_project(tmp_path, "shared-state")  # relative: to the project folder
    other = project.checkout(tmp_path / "runner-2")  # another runner: its own target/
    config = other.root / "maintainer_project.yml"
    config.write_text(
        config.read_text().replace('"shared-state"', json.dumps(str(project.root / "shared-state")))
    )
    racing = [
        p.cli_process("apply", "--auto-approve", "--select", t) for p, t in ((project, "a"), (other, "b"))
    ]
    outputs = [process.communicate(timeout=600)[0] for process in racing]
    assert [process.returncode for process in racing] == [0, 0], outputs
    assert sorted(state_of(project.root / "shared-state")["tables"]) == ["a", "b"], outputs
    assert len(list((project.root / "shared-state" / "runs").iterdir())) == 2
    assert not (other.root / "shared-state").exists()


def test_the_last_applied_folder_of_an_older_maintainer_is_the_baseline(tmp_path: Path) -> None:
    project = state_project(tmp_path, "target")  # the default place: target/last_applied
    assert (
        project.cli("compile", "--output", str(project.root / "target" / "last_applied" / "manifest.json"))
        == 0
    )
    (project.root / "target" / "last_applied" / "applied.json").write_text(
        json.dumps({"plan_id": "0123456789abcdef", "applied_at": "2026-01-01T00:00:00.000Z"})
    )
    project.retain("b", 2)
    assert project.cli("plan") == 0
    text = project.plan_md()
    assert "since the last applied plan 0123456789ab (2026-01-01T00:00:00.000Z)" in text
    assert "`clean.commits_retained`: 3 → 2 | 1 table (`b`) |" in text and "a new table" not in text

    assert project.cli("apply", "--auto-approve", "--select", "a") == 0  # merged into the old file
    state = state_of(project.root / "target")
    assert sorted(state["tables"]) == ["a", "b"] and "applied" in state["tables"]["a"]
    # b as the older maintainer kept it, recorded as applied by its last apply (which had no run id)
    assert state["tables"]["b"]["applied"] == {
        "plan_id": "0123456789abcdef",
        "applied_at": "2026-01-01T00:00:00.000Z",
        "run_id": "",
    }


def test_state_dir_still_names_the_baseline(tmp_path: Path) -> None:
    project = state_project(tmp_path, str(tmp_path / "shared-state"))
    assert project.cli("apply", "--auto-approve") == 0
    baseline = tmp_path / "compiled"
    assert project.cli("compile", "--output", str(baseline / "manifest.json")) == 0
    project.retain("a", 2)
    assert project.cli("plan", "--state", str(baseline), "--select", "state:modified") == 0
    text = project.plan_md()
    assert f"since --state {baseline}" in text and "`clean.commits_retained`: 3 → 2" in text
    plan = json.loads((project.root / "target" / "plan" / "plan.json").read_text())
    assert {node["table"] for table in plan["tables"] for node in table["nodes"]} == {"a"}


def table_files(tmp_path: Path) -> dict[str, float]:
    lake = tmp_path / "lake"
    return {str(path): path.stat().st_mtime for path in lake.rglob("*")}


def test_an_unreadable_state_refuses_the_apply_before_any_table_is_touched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared-state"
    project = state_project(tmp_path, str(shared))
    (shared / "last_applied").mkdir(parents=True)
    (shared / "last_applied" / "manifest.json").write_text("{not json")
    before = table_files(tmp_path)
    capsys.readouterr()
    assert project.cli("plan") == 0  # the plan warns and lists no manifest changes
    assert "is not valid JSON" in capsys.readouterr().err
    assert project.cli("apply", "--auto-approve", "--select", "a") == 1
    err = capsys.readouterr().err
    assert "the applied state cannot be kept" in err and "nothing was applied" in err and "delete it" in err
    assert table_files(tmp_path) == before
    assert (shared / "last_applied" / "manifest.json").read_text() == "{not json"
    assert not (project.root / "target" / "run_results.json").exists()

    loaded = load_project(project.root)  # the state broken while an apply ran: said after its work
    results = RunResults("p", "2099-01-01T00:00:00.000Z", "2099-01-01T00:00:01.000Z", ())
    with pytest.raises(StorageError, match="the apply is done, but its state was not kept"):
        keep_applied_state(loaded, project.root / "target" / "plan", results, b"{}", "inv")
    assert (shared / "last_applied" / "manifest.json").read_text() == "{not json"


@pytest.mark.parametrize("in_profile", [False, True])
def test_a_state_on_storage_without_conditional_writes_is_refused_where_written(
    tmp_path: Path, in_profile: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    project = state_project(tmp_path, "hdfs://namenode:8020/state", in_profile=in_profile)
    capsys.readouterr()
    assert project.cli("validate") != 0
    err = capsys.readouterr().err
    assert ("profiles.yml" if in_profile else "maintainer_project.yml") in err
    assert "hdfs:// has no conditional writes" in err


def test_a_table_with_a_failed_node_keeps_its_previous_entry(tmp_path: Path) -> None:
    shared = tmp_path / "shared-state"
    project = state_project(tmp_path, str(shared))
    assert project.cli("apply", "--auto-approve") == 0
    before = state_of(shared)["tables"]
    project.retain("a", 2)
    project.retain("b", 2)
    assert project.cli("plan") == 0
    loaded = load_project(project.root)
    results = RunResults(
        "plan-x",
        "2099-01-01T00:00:00.000Z",
        "2099-01-01T00:00:01.000Z",
        (
            NodeResult("a.clean", NodeRunStatus.SUCCESS),
            NodeResult("b.clean", NodeRunStatus.ERROR, message="boom"),
        ),
    )
    said = keep_applied_state(loaded, project.root / "target" / "plan", results, b"{}", "inv")
    assert "applied state of 1 table(s)" in said
    after = state_of(shared)["tables"]
    assert after["b"] == before["b"]
    assert after["a"]["applied"]["plan_id"] == "plan-x"
    assert after["a"]["spec"]["clean"]["commits_retained"] == 2
    figures = json.loads((shared / "runs" / "20990101000001000Z-inv" / "tables.json").read_text())
    assert figures["b"]["nodes"] == {"clean": "error"}


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda state: state["tables"]["a"].pop("applied"), "tables.a.applied: missing"),
        (lambda state: state["tables"]["a"]["checksum"].update(checksum=7), "tables.a.checksum.checksum"),
        (lambda state: state.update(owner="me"), "owner: unknown field"),
    ],
    ids=["missing-field", "wrong-type", "unknown-field"],
)
def test_a_tampered_state_is_named_field_by_field_and_refuses_the_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Any, problem: str
) -> None:
    """Read strictly, not with defaults: the plan warns naming the field and lists no changes,
    the apply stops before any table is touched and the state file stays as it was."""
    shared = tmp_path / "shared-state"
    project = state_project(tmp_path, str(shared))
    assert project.cli("apply", "--auto-approve", "--select", "a") == 0
    state = state_of(shared)
    edit(state)
    (shared / "last_applied" / "manifest.json").write_text(json.dumps(state))
    tampered = (shared / "last_applied" / "manifest.json").read_text()
    before = table_files(tmp_path)
    capsys.readouterr()
    assert project.cli("plan") == 0
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "is not a maintainer manifest.json" in err and problem in err and "the plan lists no manifest" in err
    )
    assert project.cli("apply", "--auto-approve", "--select", "b") == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "the applied state cannot be kept" in err and problem in err and "delete it" in err
    assert table_files(tmp_path) == before
    assert (shared / "last_applied" / "manifest.json").read_text() == tampered
