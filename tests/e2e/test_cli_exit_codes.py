"""Exit codes for automation (issue 30, points 2 and 3): one table for plan and apply; blocked or
unreadable tables are never success for automation, and one unreadable table blocks only its
own nodes: the plan is written and the other tables are maintained."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support import artifacts

pytestmark = pytest.mark.spark

BLOCKED = (
    "5 nodes blocked, left unmaintained (gone.rollback, gone.compaction, gone.clean, gone.metadata, "
    "held.clean)"
)
SERVICES = "    clean: {commits_retained: 1}\n    archive: {enabled: false}\n"


def lake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gated: bool = False) -> Path:
    """A project with three tables: ``ok`` (a clean to do), ``gone`` (no table at its path) and
    ``held`` (a clean over its gate when ``gated``)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("CI", raising=False)
    for name, seed in (("ok", 91), ("held", 92)):
        workload = WorkloadSpec(partitions=1, file_groups=1, commits=5, rows_per_commit=10, seed=seed)
        generate(str(tmp_path / name), DatagenSpec(name, "cow", 6, workload))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    gate = "    gates: {max_delete_files: 1}\n" if gated else ""
    entries = [f"  - name: ok\n    path: {tmp_path / 'ok'}\n{SERVICES}",
               f"  - name: gone\n    path: {tmp_path / 'gone'}\n{SERVICES}",
               f"  - name: held\n    path: {tmp_path / 'held'}\n{SERVICES}{gate}"]  # fmt: skip
    (root / "tables" / "example.yml").write_text("version: 1\ntables:\n" + "".join(entries))
    return root


def statuses(root: Path) -> dict[str, str]:
    data = artifacts.plan_json(root / "target" / "plan")
    return {f"{n['table']}.{n['service']}": n["status"] for t in data["tables"] for n in t["nodes"]}


def test_an_unreadable_table_makes_plan_exit_blocked_and_the_plan_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake(tmp_path, monkeypatch)
    assert main(["plan", "--project-dir", str(root), "--detailed-exitcode"]) == 3
    capsys.readouterr()
    assert main(["plan", "--project-dir", str(root)]) == 3
    found = statuses(root)
    assert (found["gone.clean"], found["ok.clean"], found["held.clean"]) == ("blocked", "changes", "changes")
    review = (root / "target" / "plan" / "plan.md").read_text()
    assert "gone" in review and "cannot be read" in review
    out = capsys.readouterr()
    assert "cannot be read" in out.out and "cannot be read" not in out.err, "said once, in the plan"


def test_apply_maintains_the_other_tables_and_names_the_blocked_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake(tmp_path, monkeypatch, gated=True)
    assert main(["plan", "--project-dir", str(root)]) == 3
    assert statuses(root)["held.clean"] == "blocked"
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root), "--detailed-exitcode"]) == 3
    out = " ".join(capsys.readouterr().out.split())
    assert "Apply complete: " in out and "files deleted" in out  # ok was cleaned
    assert BLOCKED in out
    results = artifacts.run_results(root / "target")
    by_node = {n["node"]: n["status"] for n in results["results"]}
    assert by_node["gone.clean"] == "blocked" and by_node["held.clean"] == "blocked"
    assert by_node["ok.clean"] == "success"


@pytest.mark.parametrize(("flags", "code"), [((), 3), (("--allow-blocked",), 0)])
def test_a_nightly_auto_approve_in_ci_is_red_while_a_table_is_left_unmaintained(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
    code: int,
) -> None:
    root = lake(tmp_path, monkeypatch, gated=True)
    monkeypatch.setenv("CI", "true")
    assert main(["apply", "--project-dir", str(root), "--auto-approve", *flags]) == code
    out = " ".join(capsys.readouterr().out.split())
    assert BLOCKED in out
    monkeypatch.delenv("CI")
    assert main(["apply", "--project-dir", str(root), "--auto-approve"]) == 0, "outside CI: as before"
