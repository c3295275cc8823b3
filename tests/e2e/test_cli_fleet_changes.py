"""A fleet-wide change of one ``_defaults.yml`` line, through the CLI: a manifest change that
alters what maintenance does is a change (the headline, ``--detailed-exitcode`` 2) even when no
file is touched today, and the changes are grouped by the source line that made them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.planning.markdown import COMMENT_LIMIT
from tests.support.fleet import fleet_project, generate_lake, set_retention, set_trigger

COW = [f"cow_{i:03d}" for i in range(40)]
MOR = [f"mor_{i:03d}" for i in range(10)]


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """40 copy-on-write and 10 merge-on-read tables of two commits: nothing to clean or compact."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    lake = tmp_path / "lake"
    generate_lake(lake, COW, "cow")
    generate_lake(lake, MOR, "mor")
    return fleet_project(tmp_path / "project", lake, COW, MOR)


def plan(root: Path, *args: str) -> int:
    return main(["plan", "--project-dir", str(root), "--detailed-exitcode", *args])


def test_a_retention_cut_in_a_folder_defaults_is_a_change_grouped_by_its_line(
    fleet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plan(fleet) == 0  # nothing to do, nothing applied yet
    assert main(["apply", "--project-dir", str(fleet)]) == 0  # the state keeps these manifests
    set_retention(fleet, 3)
    set_trigger(fleet, 9)
    capsys.readouterr()

    assert plan(fleet) == 2  # the old code: 0, "No changes."
    out = capsys.readouterr().out
    headline = (
        "No files to change now; maintenance changes for 50 tables: 40 destructive, 10 rewrite. "
        "0 nodes blocked, 110 with nothing to do."
    )
    assert headline in out
    assert (
        "destructive   tables/cow/_defaults.yml:2 clean.commits_retained: 4 -> 3: 40 tables "
        "(cow_000 … cow_039) (less retention (commits))"
    ) in out
    assert (
        "rewrite       tables/mor/_defaults.yml:3 compaction.trigger.max_delta_commits: 5 -> 9: "
        "10 tables (mor_000 … mor_009) (compaction settings)"
    ) in out
    plan_dir = fleet / "target" / "plan"
    md = (plan_dir / "plan.md").read_text()
    assert f"**{headline}**" in md
    assert (
        "| `tables/cow/_defaults.yml:2` | `clean.commits_retained`: 4 → 3 | 40 tables "
        "(`cow_000` … `cow_039`) | **destructive**: less retention (commits) |"
    ) in md
    changes = json.loads((plan_dir / "plan_meta.json").read_text())["changes"]  # every table, by name
    cut = [c["table"] for c in changes if c["source"] == "tables/cow/_defaults.yml:2"]
    assert cut == COW

    assert main(["show", str(plan_dir), "--verbose"]) == 0  # every table of a change, by name
    assert "40 tables (" + ", ".join(COW) + ")" in capsys.readouterr().out

    assert main(["plan", "--project-dir", str(fleet), "--detailed-exitcode", "--quiet"]) == 2
    assert headline in capsys.readouterr().out  # the closing line alone says it too
    assert plan(fleet, "--log-format", "json") == 2
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (closing,) = [r for r in records if r.get("event") == "summary"]
    assert closing["maintenance_changes"] == {"destructive": 40, "rewrite": 10}


def test_a_metadata_only_change_is_no_change_and_a_selection_counts_only_its_tables(
    fleet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    assert main(["compile", "--project-dir", str(fleet), "--output", str(state / "manifest.json")]) == 0
    set_retention(fleet, 4, tags="[fleet, audited]")  # tags only: maintenance is the same
    capsys.readouterr()
    assert plan(fleet, "--state", str(state)) == 0
    out = capsys.readouterr().out
    assert "No changes. 0 nodes blocked, 110 with nothing to do." in out
    assert "(maintenance is the same)" in out
    assert "metadata-only tables/cow/_defaults.yml:4 tags: " in out

    set_trigger(fleet, 9)
    assert plan(fleet, "--state", str(state), "--select", "cow_*") == 0  # the rewrite is elsewhere
    assert plan(fleet, "--state", str(state), "--select", "mor_001") == 2
    assert "maintenance changes for 1 table: 1 rewrite" in capsys.readouterr().out
    shutil.rmtree(fleet.parent / "lake" / "mor_001" / ".hoodie")
    assert plan(fleet, "--state", str(state), "--select", "mor_001") == 3  # blocked still wins


@pytest.mark.slow
def test_300_tables_the_plan_md_fits_a_comment_and_the_text_plan_is_summarised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 copy-on-write tables that each delete files, 100 merge-on-read ones (about 40 s)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cow, mor = [f"cow_{i:03d}" for i in range(200)], [f"mor_{i:03d}" for i in range(100)]
    lake = tmp_path / "lake"
    generate_lake(lake, cow, "cow", commits=6)
    generate_lake(lake, mor, "mor")
    root = fleet_project(tmp_path / "project", lake, cow, mor)
    state = tmp_path / "state"
    assert main(["compile", "--project-dir", str(root), "--output", str(state / "manifest.json")]) == 0
    set_retention(root, 3)
    set_trigger(root, 9)
    capsys.readouterr()

    assert plan(root, "--state", str(state)) == 2
    brief = capsys.readouterr().out
    md = (root / "target" / "plan" / "plan.md").read_text()
    assert len(md) < COMMENT_LIMIT, len(md)
    assert "maintenance changes for 300 tables: 200 destructive, 100 rewrite." in md
    assert "| `tables/cow/_defaults.yml:2` | `clean.commits_retained`: 4 → 3 | 200 tables " in md
    rewrite = "| `tables/mor/_defaults.yml:3` | `compaction.trigger.max_delta_commits`: 5 → 9 | 100 tables "
    assert rewrite in md
    assert "180 more tables with changes or blocked nodes, one line each" in brief

    assert main(["show", str(root / "target" / "plan"), "--verbose"]) == 0
    full = capsys.readouterr().out
    assert len(brief) < 100_000 < len(full), (len(brief), len(full))  # summarised, all with --verbose
