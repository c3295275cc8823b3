"""The fleet's compaction budget through the CLI: with a budget below the fleet's compaction
work, the plan takes the file slices worth most per byte read first, across tables, lists the
deferred ones with their value in plan.md, plans the clean on what the trimmed compaction
leaves; apply compacts only those, the rows read the same, and a later plan takes the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import slice_target
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support import oracle
from tests.support.artifacts import plan_json

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
EXIT_CHANGES = 2


def lake_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Path]]:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    tables = {}
    for index, name in enumerate(("orders", "trips", "events")):
        path = tmp_path / "lake" / name
        workload = WorkloadSpec(
            partitions=2, file_groups=2, commits=3 + 2 * index, rows_per_commit=12, seed=index
        )
        generate(str(path), DatagenSpec(name, "mor", 8, workload))
        tables[name] = path
    lines = ["version: 1", "tables:"] + [f"  - name: {n}\n    path: {p}" for n, p in tables.items()]
    (root / "tables" / "example.yml").write_text("\n".join(lines) + "\n")
    defaults = (
        "defaults:\n  compaction: {trigger: {max_delta_commits: 1}}\n"
        "  clean: {policy: keep_latest_file_versions, file_versions_retained: 1}\n"
        "  archive: {enabled: false}\n  metadata: {}\n"
    )
    project = root / "maintainer_project.yml"
    text = project.read_text()
    project.write_text(text[: text.index("defaults:")] + defaults)
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    return root, tables


def compactions(plan_dir: Path) -> dict[str, dict[str, Any]]:
    plan = plan_json(plan_dir)
    return {t["name"]: next(n for n in t["nodes"] if n["service"] == "compaction") for t in plan["tables"]}


def slices(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in node["actions"] if a["kind"] == "compact_slice"]


def log_bytes(action: dict[str, Any]) -> int:
    return sum(f["size"] for f in action["log_files"])


def input_bytes(action: dict[str, Any]) -> int:
    base: int = action["base_file"]["size"] if action["base_file"] else 0
    return log_bytes(action) + base


def value(action: dict[str, Any]) -> float:
    return round(log_bytes(action) / input_bytes(action), 4)


def test_a_budget_takes_the_best_slices_first_and_defers_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, tables = lake_project(tmp_path, monkeypatch)
    full_dir, budget_dir = tmp_path / "full", tmp_path / "budget"
    assert main(["plan", "--project-dir", str(root), "--out", str(full_dir)]) == 0
    everything = [(t, a) for t, n in compactions(full_dir).items() for a in slices(n)]
    total = sum(
        int(
            a["log_files"]
            and sum(f["size"] for f in a["log_files"]) + (a["base_file"]["size"] if a["base_file"] else 0)
        )
        for _, a in everything
    )
    assert len(everything) >= 6
    budget = total // 2
    assert (
        main(["plan", "--project-dir", str(root), "--out", str(budget_dir), "--budget-bytes", str(budget)])
        == 0
    )
    capsys.readouterr()
    nodes = compactions(budget_dir)
    taken = [(t, a) for t, n in nodes.items() for a in slices(n)]
    deferred = [(t, d) for t, n in nodes.items() for d in n["effect"]["deferred"]]
    assert taken and deferred
    assert len(taken) + len(deferred) == len(everything)
    read = sum(d["input_bytes"] for _, d in deferred)
    assert total - read <= budget
    # every slice taken is worth at least as much per byte read as every deferred one that would have fit
    worst_taken = min(value(a) for _, a in taken)
    assert all(d["value"] <= worst_taken or d["input_bytes"] > budget for _, d in deferred)
    for node in nodes.values():
        effect = node["effect"]
        assert effect["slices"] == len(slices(node))
        if effect["deferred"]:
            assert any("compaction budget" in r for r in node["reasons"])
    markdown = (budget_dir / "plan.md").read_text()
    assert f"### Deferred by the compaction budget ({len(deferred)} file slices" in markdown
    before = {name: oracle.snapshot_rows(path, drop=META) for name, path in tables.items()}
    assert main(["apply", "--project-dir", str(root), str(budget_dir)]) == 0
    capsys.readouterr()
    for name, path in tables.items():
        assert oracle.snapshot_rows(path, drop=META) == before[name], name
    # a later plan takes the deferred slices of each table whose compaction is still due (a table
    # compacted in part waits for its trigger again, as Hudi's next scheduled compaction would)
    later = tmp_path / "later"
    assert main(["plan", "--project-dir", str(root), "--out", str(later)]) == 0
    rest = {
        (t, slice_target(a["partition"], a["file_id"]))
        for t, n in compactions(later).items()
        for a in slices(n)
    }
    untouched = {t for t, n in nodes.items() if not slices(n)}
    assert untouched, "the budget leaves a whole table for later"
    assert rest == {(t, d["target"]) for t, d in deferred if t in untouched}
