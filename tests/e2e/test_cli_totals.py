"""Plan and apply count the same things (issue 30, item 9): the files and bytes a rollback
deletes are in the plan model, the plan's summary line, the node's headline and plan.md, and
apply's closing line says the same figures for what it did."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.units import human_bytes

pytestmark = pytest.mark.spark


def test_a_rollbacks_files_and_bytes_are_in_the_plan_and_the_apply_says_the_same(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=3)
    generated = generate(str(table), DatagenSpec("t", "cow", 6, workload, failed_write=True))
    assert generated.failed_instant is not None
    failed_files = sorted(
        p for p in table.rglob("*.parquet") if ".hoodie" not in p.parts and generated.failed_instant in p.name
    )
    assert failed_files
    failed_bytes = sum(p.stat().st_size for p in failed_files)
    root = project(table, "rollback: {min_age: 0s}\nclean: {commits_retained: 1}\narchive: {enabled: false}")

    assert main(["plan", "--project-dir", str(root)]) == 0
    out = capsys.readouterr().out
    plan_dir = root / "target" / "plan"
    nodes = {
        n["service"]: n
        for t in json.loads((plan_dir / "plan.json").read_text())["tables"]
        for n in t["nodes"]
    }
    rollback, clean = nodes["rollback"], nodes["clean"]
    (action,) = rollback["actions"]
    assert len(action["delete_files"]) == len(failed_files) and action["delete_bytes"] == failed_bytes
    assert rollback["effect"]["files"] == len(failed_files) and rollback["effect"]["bytes"] == failed_bytes
    cleaned = len(clean["actions"])
    assert cleaned, "the clean deletes files too: both totals are told"
    told = f"1 failed write to roll back ({len(failed_files)} files to delete, {human_bytes(failed_bytes)})"
    summary = next(line for line in out.splitlines() if line.startswith("Plan: "))
    assert summary.startswith(f"Plan: {cleaned} files to delete (") and told in summary
    assert f"t.rollback: {told}" in out
    markdown = (plan_dir / "plan.md").read_text()
    assert markdown.count(told) == 4  # summary line, the table's row, its details, the node

    assert main(["apply", "--project-dir", str(root)]) == 0
    closing = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert closing.startswith(f"Apply complete: {cleaned} files deleted (")
    assert f"1 rollback ({len(failed_files)} files deleted, {human_bytes(failed_bytes)})" in closing
    assert not any(p.exists() for p in failed_files)
