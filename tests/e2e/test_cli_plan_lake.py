"""A lake of 1,000 tables through the CLI: the plan's review (plan.md) still fits one
pull-request comment (GitHub: 65,536 characters), most important first."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.markdown import COMMENT_LIMIT

TABLES = 1000
BUSY_EVERY = 10
LATEST_ONLY = (
    "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}, archive: {enabled: false}"
)


def lake(root: Path) -> Path:
    """1,000 tables: every tenth one with old file versions to clean, the others idle; hard
    links of two generated tables (the plan reads them, never writes)."""
    busy, idle, lake = root / "busy", root / "idle", root / "lake"
    generate(
        str(busy),
        DatagenSpec("t", "cow", 6, WorkloadSpec(partitions=4, file_groups=2, commits=4, rows_per_commit=4)),
    )
    generate(
        str(idle),
        DatagenSpec("t", "cow", 6, WorkloadSpec(partitions=1, file_groups=1, commits=1, rows_per_commit=1)),
    )
    for index in range(TABLES):
        source = busy if index % BUSY_EVERY == 0 else idle
        shutil.copytree(source, lake / f"table_{index:04d}", copy_function=os.link)
    return lake


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    tables = lake(tmp_path)
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    entries = [
        f"  - {{name: table_{i:04d}, path: {tables}/table_{i:04d}, {LATEST_ONLY}}}" for i in range(TABLES)
    ]
    (root / "tables" / "example.yml").write_text("version: 1\ntables:\n" + "\n".join(entries) + "\n")
    return root


def test_the_review_of_a_1000_table_plan_fits_a_pull_request_comment(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "--project-dir", str(project), "--detailed-exitcode"]) == 2
    review = (project / "target" / "plan" / "plan.md").read_text()
    assert len(review) < COMMENT_LIMIT, len(review)
    assert "in 100 tables; 0 nodes blocked" in review
    assert "### Tables with changes (100)" in review
    assert "**Nothing to do** in 900 tables: `table_0001`" in review
    assert "| selection | all 1,000 tables |" in review
    assert review.count("<details>") == review.count("</details>") >= 10
    capsys.readouterr()
    assert main(["show", str(project / "target" / "plan"), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == review
