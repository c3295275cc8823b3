"""The smaller points of the unattended-fleet trial (issue 30), each through the CLI: what plan,
apply, validate and plan.md say must be true and said once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.graph.manifest import dump_record
from tests.unit.graph.manifests import compiled
from tests.unit.project.projects import write_project


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def tables_file(*entries: str) -> dict[str, str]:
    return {"tables/a.yml": "version: 1\ntables:\n" + "".join(entries)}


def entry(name: str, path: Path | str, *lines: str) -> str:
    return f"  - name: {name}\n    path: {path}\n" + "".join(f"    {line}\n" for line in lines)


def cow_with_failed_write(root: Path) -> GeneratedTable:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=3)
    return generate(str(root), DatagenSpec("t", "cow", 6, workload, failed_write=True))


def plan_nodes(project: Path) -> dict[str, dict[str, object]]:
    data = json.loads((project / "target" / "plan" / "plan.json").read_text())
    return {n["service"]: n for t in data["tables"] for n in t["nodes"]}


def test_a_cow_clean_after_a_rollback_names_the_rollback_never_a_compaction(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cow_with_failed_write(isolated / "t")
    project = write_project(
        isolated / "p",
        tables_file(entry("t", isolated / "t", "rollback: {min_age: 0s}", "clean: {commits_retained: 1}")),
    )
    assert main(["plan", "--project-dir", str(project)]) == 0
    out = capsys.readouterr().out
    reasons = " ".join(plan_nodes(project)["clean"]["reasons"])  # type: ignore[arg-type]
    assert "after this plan's rollback" in reasons
    assert "compaction" not in reasons and "compaction" not in out


def test_skipped_nodes_are_numbered_each_once(isolated: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    cow_with_failed_write(isolated / "t")
    services = ("rollback: {min_age: 0s}", "clean: {commits_retained: 1}", "archive: {}")
    project = write_project(isolated / "p", tables_file(entry("t", isolated / "t", *services)))
    assert main(["plan", "--project-dir", str(project)]) == 0
    capsys.readouterr()
    monkeypatch.setenv(FAULT_ENV, "rollback:after_requested")
    assert main(["apply", "--project-dir", str(project)]) == 1
    out = capsys.readouterr().out
    numbers = re.findall(r"(\d+) of (\d+) (?:START|OK|ERROR|SKIP)", out)
    ends = [n for n, _ in re.findall(r"(\d+) of (\d+) (?:OK|ERROR|SKIP)", out)]
    skips = re.findall(r"(\d+) of \d+ SKIP", out)
    assert len(skips) == 2, out  # the clean and the archive, after the failed rollback
    assert sorted(ends) == sorted(set(ends)) == ["1", "2", "3"], out
    assert {total for _, total in numbers} == {"3"}


def test_blocked_reasons_are_pointed_to_where_they_are_and_a_read_error_is_said_once(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "nothing").mkdir()
    project = write_project(isolated / "p", tables_file(entry("t", isolated / "nothing")))

    assert main(["plan", "--project-dir", str(project), "-q"]) == 3  # blocked, not an error
    captured = capsys.readouterr()
    assert "see why below" not in captured.out
    assert f"see why in {project / 'target' / 'plan' / 'plan.md'}" in captured.out
    assert captured.err.count("not a Hudi table") == 1  # -q: the error, once

    assert main(["plan", "--project-dir", str(project)]) == 3
    captured = capsys.readouterr()
    both = captured.out + captured.err
    assert both.count("not a Hudi table") == 1, both  # the text names it; stderr says how many
    assert "1 table could not be planned" in captured.err
    assert "see why above" in captured.out and "see why below" not in captured.out
    assert "see why below" in (project / "target" / "plan" / "plan.md").read_text()  # the reasons follow


def test_plan_md_has_no_empty_cells_for_a_new_table_nor_an_empty_risk_column(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cow_with_failed_write(isolated / "t")
    project = write_project(
        isolated / "p",
        tables_file(entry("t", isolated / "t", "rollback: {min_age: 0s}", "clean: {commits_retained: 1}")),
    )
    state = isolated / "state"
    state.mkdir()
    no_table = dump_record(compiled([]))  # a manifest.json compiled when t was not maintained
    (state / "manifest.json").write_text(json.dumps(no_table))
    assert main(["plan", "--project-dir", str(project), "--state", str(state)]) == 0
    markdown = (project / "target" / "plan" / "plan.md").read_text()
    assert (
        "| a new table: its maintenance starts (cleans and rollbacks delete files) | 1 table (`t`) |"
        in markdown
    )
    assert "| **destructive** |" in markdown and "**destructive**: |" not in markdown
    assert "|  |" not in markdown.split("### Tables with changes")[0], "no empty cell among the changes"
    assert "| table | files deleted | compaction | other |\n" in markdown  # no high risk: no column
    assert "risk |" not in markdown


def test_a_bad_dependency_name_is_one_error_not_also_its_dependants(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_project(
        isolated / "p",
        tables_file(
            entry("trips", "/lake/trips", "depends_on: [zones.]"),
            entry("fares", "/lake/fares", "depends_on: [trips]"),
            entry("zones", "/lake/zones"),
        ),
    )
    assert main(["validate", "--project-dir", str(project)]) == 1
    err = capsys.readouterr().err
    assert "table 'trips': depends_on[0]" in err and "'zones.'" in err
    assert "depends on unknown table" not in err  # fares depends on trips, whose entry is the error
