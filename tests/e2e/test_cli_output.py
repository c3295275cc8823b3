"""Output for CI through the CLI: dbt's "N of M START/OK" lines where no one watches a
terminal, --quiet, --log-format json (one object per line), and the options before or after
the command's name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from tests.support.metadata_tables import Project, local_cow_project

SERVICES = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_file_versions, file_versions_retained: 1}"  # noqa: E501


@pytest.fixture
def planned(project: Callable[[Path, str], Path], tmp_path: Path, sessions: list[object]) -> Project:
    maintained = local_cow_project(project, tmp_path, SERVICES, commits=4, seed=3)
    assert maintained.cli("plan") == 0
    return maintained


def test_apply_in_a_log_prints_n_of_m_lines_and_the_closing_line(
    planned: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert planned.cli("apply") == 0
    out = capsys.readouterr().out
    assert "  1 of 2 START t.rollback" in out and "  1 of 2 OK t.rollback" in out
    assert "  2 of 2 START t.clean" in out
    assert "2 of 2 OK t.clean " in out and "[OK in " in out
    assert out.rstrip().splitlines()[-1].startswith("Apply complete: ")


def test_quiet_prints_only_the_closing_line(planned: Project, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--quiet", "apply", "--project-dir", str(planned.root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("Apply complete: ") and "files deleted" in out[0]
    assert planned.cli("plan", "-q") == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("No changes.") and "Written to " in line


def test_json_log_format_through_plan_and_apply(planned: Project, capsys: pytest.CaptureFixture[str]) -> None:
    assert planned.cli("plan", "--log-format", "json") == 0
    assert planned.cli("apply", "--log-format", "json") == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert all({"ts", "level", "msg"} <= set(record) for record in records)
    events = [(r.get("event"), r.get("node"), r.get("status")) for r in records if r.get("event")]
    assert ("node_start", "t.clean", None) in events and ("node_end", "t.clean", "success") in events
    plan_summary, apply_summary = [r for r in records if r.get("event") == "summary"]
    assert plan_summary["plan_id"] and plan_summary["nodes"] == {"changes": 1, "no_op": 1}
    assert apply_summary["status"] == "success" and apply_summary["msg"].startswith("Apply complete: ")


def test_a_bad_log_format_is_a_usage_error(planned: Project, capsys: pytest.CaptureFixture[str]) -> None:
    assert planned.cli("plan", "--log-format", "xml") == 64
    assert "'xml' is not one of 'text', 'json'" in capsys.readouterr().err


def test_run_results_join_the_manifest_by_unique_id(planned: Project) -> None:
    assert planned.cli("apply") == 0
    assert planned.cli("compile") == 0
    target = planned.root / "target"
    results = json.loads((target / "run_results.json").read_text())
    manifest = json.loads((target / "manifest.json").read_text())
    assert results["args"]["which"] == "apply" and results["args"]["refuse_stale"] is False
    assert {r["unique_id"] for r in results["results"]} <= set(manifest["nodes"])
    assert {r["node"] for r in results["results"]} == {"t.rollback", "t.clean"}
