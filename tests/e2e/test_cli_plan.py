"""``maintainer plan`` and ``maintainer show`` end to end: a project (from ``init``) whose manifest
points at generated tables and at fixture copies; the plan directory, its determinism, the
exit codes, the metadata table rule, and nothing to clean."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from maintainer.cli import main
from tests.integration.plan import cleantables as ct
from tests.support import artifacts
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures

MDT_FIXTURE = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
QUIET_FIXTURE = "sample_table_cow_v6_nonpartitioned"


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def make_project(root: Path, tables: list[dict[str, object]]) -> Path:
    assert main(["init", str(root / "proj")]) == 0
    project = root / "proj"
    (project / "tables" / "example.yml").unlink()
    (project / "tables" / "lake.yml").write_text(yaml.safe_dump({"version": 1, "tables": tables}))
    return project


@pytest.fixture
def project(isolated: Path, fixture_copy: Callable[[str], FixtureTable]) -> Path:
    cow = ct.make_table(isolated / "lake", "cow", 6, commits=15)
    mor = ct.make_table(isolated / "lake", "mor", 8, commits=15)
    tables: list[dict[str, object]] = [
        {"name": "cow", "path": cow.path, "clean": {"commits_retained": 3}},
        {"name": "mor", "path": mor.path, "clean": {"commits_retained": 3}},
        {"name": "quiet", "path": str(fixture_copy(QUIET_FIXTURE).path)},
        {"name": "with_mdt", "path": str(fixture_copy(MDT_FIXTURE).path), "metadata_table": "refuse"},
    ]
    return make_project(isolated, tables)


def plan(project: Path, *args: str) -> int:
    return main(["plan", "--project-dir", str(project), *args])


def nodes(directory: Path) -> dict[str, dict[str, object]]:
    data = artifacts.plan_json(directory)
    return {f"{n['table']}.{n['service']}": n for t in data["tables"] for n in t["nodes"]}


def test_plan_writes_the_plan_directory_and_show_renders_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plan(project) == 0
    directory = project / "target" / "plan"
    found = nodes(directory)
    assert found["cow.clean"]["status"] == "changes"
    assert found["mor.clean"]["status"] == "no_op"
    assert found["quiet.clean"]["status"] == "no_op"
    assert found["with_mdt.clean"]["status"] == "blocked"
    assert "metadata_table: drop" in found["with_mdt.clean"]["reasons"][0]  # type: ignore[index]
    assert "cow.compaction" not in found  # copy-on-write
    assert found["mor.compaction"]["status"] == "changes"  # 15 deltacommits, none compacted
    assert sorted(p.name for p in (directory / "payloads").iterdir()) == [
        "cow.clean.requested",
        "mor.compaction.requested",
    ]
    out = capsys.readouterr().out
    assert "Plan: " in out and "files to delete" in out

    assert main(["show", str(directory), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown == (directory / "plan.md").read_text()
    assert "| `cow` | 66 (" in markdown and "**`cow.clean`**: 66 files to delete" in markdown
    assert main(["show", str(directory), "--format", "json"]) == 0
    assert capsys.readouterr().out == (directory / "plan.json").read_text()
    assert main(["show", str(directory)]) == 0
    assert "cow.clean: " in capsys.readouterr().out


def test_plan_starts_no_jvm_and_writes_no_table(project: Path, isolated: Path) -> None:
    lake = isolated / "lake"
    before = {p: p.stat().st_mtime_ns for p in lake.rglob("*")}
    script = (
        "import sys\n"
        "from maintainer.cli import main\n"
        f"code = main(['plan', '--project-dir', {str(project)!r}])\n"
        "spark = sys.modules.get('pyspark')\n"
        "print(code, spark is None or spark.SparkContext._active_spark_context is None)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.stdout.strip().splitlines()[-1] == "0 True", result.stderr
    assert {p: p.stat().st_mtime_ns for p in lake.rglob("*")} == before


def test_same_state_gives_a_byte_identical_plan_directory(project: Path, tmp_path: Path) -> None:
    assert plan(project, "--out", str(tmp_path / "a")) == 0
    assert plan(project, "--out", str(tmp_path / "b")) == 0
    first = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    second = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    # plan.json, plan.md, plan_meta.json, manifest.json, 2 payloads
    assert first == second and len(first) == 6
    for name in first:
        if name.name not in ("plan_meta.json", "plan.md", "manifest.json"):  # provenance: when it was made
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name

    def reviewed(directory: str) -> list[str]:
        return [
            line
            for line in (tmp_path / directory / "plan.md").read_text().splitlines()
            if "| made |" not in line
        ]

    assert reviewed("a") == reviewed("b")


def test_detailed_exitcode_is_0_without_changes_and_2_with(project: Path) -> None:
    assert plan(project, "--select", "quiet mor.clean", "--detailed-exitcode") == 0
    assert plan(project, "--select", "cow", "--detailed-exitcode") == 2
    assert plan(project, "--select", "cow") == 0


def test_metadata_table_is_dropped_first_when_the_manifest_says_so(
    isolated: Path, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    path = str(fixture_copy(MDT_FIXTURE).path)
    project = make_project(isolated, [{"name": "m", "path": path, "metadata_table": "drop"}])
    assert plan(project, "--select", "m.clean", "--detailed-exitcode") == 2
    clean = nodes(project / "target" / "plan")["m.clean"]
    actions = clean["actions"]
    assert isinstance(actions, list)
    assert actions[0]["kind"] == "drop_metadata_table"
    assert actions[0]["target"] == ".hoodie/metadata"
    review = (project / "target" / "plan" / "plan.md").read_text()
    assert "> [!CAUTION]" in review  # a risk a reviewer must not miss, at the top
    assert "> - `m.clean` ⚠ drops the metadata table: metadata table (" in review
    assert "record_index" in review and "writers that use them re-index every base file" in review


def test_unreadable_table_is_blocked_and_plan_exits_3_after_writing(isolated: Path) -> None:
    project = make_project(isolated, [{"name": "gone", "path": str(isolated / "nowhere")}])
    assert plan(project) == 3, "blocked, not an error of the run"
    assert nodes(project / "target" / "plan")["gone.clean"]["status"] == "blocked"


def test_show_refuses_a_tampered_plan(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert plan(project, "--select", "cow") == 0
    path = project / "target" / "plan" / "plan.json"
    path.write_text(path.read_text().replace('"changes"', '"no_op"'))
    assert main(["show", str(path.parent)]) == 1
    assert "changed after planning" in capsys.readouterr().err
