"""``maintainer debug`` through the CLI: every check of a working target passes (one executor
task on the shared local session), a broken one names what failed with its fix and exits 1,
and no table changes either way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec


def files_under(root: Path) -> dict[str, int]:
    return {str(path.relative_to(root)): path.stat().st_size for path in root.rglob("*") if path.is_file()}


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=3, rows_per_commit=5, seed=3)
    generate(str(path), DatagenSpec("t", "mor", 8, workload))
    return path


def debug_json(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["debug", "--project-dir", str(root), "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_a_working_target_passes_every_check_and_changes_nothing(
    project: Callable[[Path, str], Path], table: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(table, "compaction: {enabled: false}")
    before = files_under(table)
    code, report = debug_json(root, capsys)
    assert code == 0, report
    checks = {(check["group"], check["name"]): check for check in report["checks"]}
    assert {check["status"] for check in checks.values()} == {"passed"}
    assert list(checks) == [
        ("project", "project"), ("project", "profile"), ("spark", "JDK"), ("spark", "session"),
        ("spark", "executor"), ("table t", "storage"), ("table t", "Hudi table"), ("table t", "timeline"),
        ("table t", "writable"),
    ]  # fmt: skip
    assert checks[("spark", "executor")]["detail"].startswith("imports maintainer ")
    assert files_under(table) == before


def test_a_broken_table_path_fails_with_its_fix_and_exit_code_1(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "lake" / "nowhere", "compaction: {enabled: false}")
    capsys.readouterr()
    assert main(["debug", "--project-dir", str(root), "--no-spark"]) == 1
    out = capsys.readouterr().out
    assert "FAIL Hudi table:" in out and "does not exist" in out
    assert "fix: check the table's path in its manifest" in out
    assert "SKIP session: --no-spark" in out
    assert "1 check(s) failed" in out


def test_an_invalid_project_is_one_failed_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "maintainer_project.yml").write_text("name: [unclosed\n")
    code, report = debug_json(tmp_path, capsys)
    assert code == 1
    assert [(check["group"], check["status"]) for check in report["checks"]] == [("project", "failed")]
    assert "maintainer_project.yml" in report["checks"][0]["detail"]
