"""Issue 30's fleet check, through the CLI: a lake of 300 tables with one missing, one damaged and
one over its gate. ``plan`` exits blocked (3) and its plan.md names the three and fits a comment;
``apply --auto-approve`` in CI maintains the other 297, writes run_results and the state, exits
blocked and names them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.markdown import COMMENT_LIMIT
from tests.support import artifacts, oracle

pytestmark = [pytest.mark.slow]

TABLES = 300
MISSING, DAMAGED, GATED = "t100", "t101", "t102"
SERVICES = (
    "    rollback: {enabled: false}\n    compaction: {enabled: false}\n"
    "    clean: {commits_retained: 1}\n    archive: {enabled: false}\n"
)


def build_lake(tmp_path: Path) -> tuple[Path, Path]:
    """300 copy-on-write tables (copies of one generated table, each with old file versions to
    clean), a project listing them; ``t100`` has no table at its path, ``t101`` a commit cut in
    half, ``t102`` a gate its clean is over."""
    lake = tmp_path / "lake"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=4, rows_per_commit=5, seed=301)
    generate(str(tmp_path / "template"), DatagenSpec("t", "cow", 6, workload))
    for n in range(TABLES):
        name = f"t{n:03d}"
        if name != MISSING:
            shutil.copytree(tmp_path / "template", lake / name)
    latest = sorted((lake / DAMAGED / ".hoodie").glob("*.commit"))[-1]
    latest.write_bytes(latest.read_bytes()[: latest.stat().st_size // 2])
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    entries = []
    for n in range(TABLES):
        name = f"t{n:03d}"
        gate = "    gates: {max_delete_files: 1}\n" if name == GATED else ""
        entries.append(f"  - name: {name}\n    path: {lake / name}\n{SERVICES}{gate}")
    (root / "tables" / "example.yml").write_text("version: 1\ntables:\n" + "".join(entries))
    return lake, root


def test_a_300_table_lake_with_three_broken_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    lake, root = build_lake(tmp_path)
    rows = oracle.snapshot_rows(lake / "t000")
    versions = len(list((lake / "t000").rglob("*.parquet")))

    assert main(["plan", "--project-dir", str(root), "--detailed-exitcode", "-q"]) == 3
    review = (root / "target" / "plan" / "plan.md").read_text()
    assert len(review) <= COMMENT_LIMIT
    for name in (MISSING, DAMAGED, GATED):
        assert f"`{name}" in review, name
    capsys.readouterr()

    monkeypatch.setenv("CI", "true")
    assert main(["apply", "--project-dir", str(root), "--auto-approve", "-q"]) == 3
    closing = " ".join(capsys.readouterr().out.split())
    # an unreadable table's nodes are all blocked (whether it has a metadata table is unknown)
    blocked = [f"{MISSING}.clean", f"{MISSING}.metadata", f"{DAMAGED}.clean", f"{DAMAGED}.metadata"]
    blocked.append(f"{GATED}.clean")
    assert "5 nodes blocked, left unmaintained (" + ", ".join(blocked) + ")" in closing
    results = artifacts.run_results(root / "target")
    statuses = {n["node"]: n["status"] for n in results["results"]}
    assert [node for node, status in statuses.items() if status == "blocked"] == blocked
    cleaned = [node for node, status in statuses.items() if status == "success"]
    assert len(cleaned) == TABLES - 3
    state = json.loads((root / "target" / "last_applied" / "manifest.json").read_text())
    assert len(state["tables"]) >= TABLES - 3
    for name in ("t000", "t150", "t299"):  # cleaned, every row still read
        assert oracle.snapshot_rows(lake / name) == rows
        assert len(list((lake / name).rglob("*.parquet"))) < versions
