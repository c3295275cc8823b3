"""The storage-free commands end to end: init, validate, ls, graph, compile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from maintainer.cli import main
from tests.unit.project.projects import write_project

MAINTAINER = shutil.which("maintainer", path=str(Path(sys.executable).parent))


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.mark.skipif(MAINTAINER is None, reason="the maintainer console script is not installed")
def test_init_then_validate_ls_graph_with_the_installed_command(isolated: Path) -> None:
    env = {**os.environ, "HOME": str(isolated / "home")}

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        assert MAINTAINER is not None
        return subprocess.run(
            [MAINTAINER, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
        )

    assert run("init", "x", cwd=isolated).returncode == 0
    project = isolated / "x"
    for args in (("validate",), ("ls",), ("graph",)):
        result = run(*args, cwd=project)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert "trips.compaction" in run("ls", cwd=project).stdout
    assert run("graph", cwd=project).stdout.startswith("flowchart LR")


def test_init_copies_the_template(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(isolated / "my-lake")]) == 0

    project = isolated / "my-lake"
    for name in (
        "maintainer_project.yml",
        "profiles.yml",
        "tables/example.yml",
        "README.md",
        ".github/workflows/maintainer.yml",
        "schemas/manifest.schema.json",
    ):
        assert (project / name).is_file(), name
    assert "name: my_lake" in (project / "maintainer_project.yml").read_text()
    assert (project / "profiles.yml").read_text().count("my_lake:") == 1
    workflow = (project / ".github/workflows/maintainer.yml").read_text()
    assert set(yaml.safe_load(workflow)["jobs"]) == {"plan", "apply", "scheduled"}
    assert "maintainer show target/plan --format markdown" in workflow
    assert "maintainer apply" in workflow and "pull_request" in workflow
    assert "created project 'my_lake'" in capsys.readouterr().out


def test_init_refuses_an_existing_project(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(isolated / "p")]) == 0
    assert main(["init", str(isolated / "p")]) == 1
    assert "already has maintainer_project.yml, profiles.yml, tables/example.yml" in capsys.readouterr().err


def test_init_in_an_existing_repository_keeps_its_files(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = isolated / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# mine\n")

    assert main(["init", str(repo)]) == 0

    assert (repo / "README.md").read_text() == "# mine\n"
    assert (repo / "maintainer_project.yml").is_file()
    assert "kept your existing README.md" in capsys.readouterr().out


@pytest.fixture
def demo(isolated: Path) -> Path:
    assert main(["init", str(isolated / "demo")]) == 0
    return isolated / "demo"


def test_validate_reports_counts(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["validate", "--project-dir", str(demo)]) == 0
    assert "2 table(s) in 1 manifest(s), 9 node(s)" in capsys.readouterr().out


def test_ls_text_json_tables_and_selection(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ls", "--project-dir", str(demo), "--select", "trips_daily"]) == 0
    assert capsys.readouterr().out.split() == [
        "trips_daily.rollback",
        "trips_daily.clean",
        "trips_daily.metadata",
        "trips_daily.archive",
    ]

    assert (
        main(
            [
                "ls",
                "--project-dir",
                str(demo),
                "-s",
                "+trips_daily",
                "--exclude",
                "service:rollback",
                "--output",
                "json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in rows] == [
        "trips.compaction",
        "trips.clean",
        "trips.metadata",
        "trips.archive",
        "trips_daily.clean",
        "trips_daily.metadata",
        "trips_daily.archive",
    ]
    assert rows[0]["mor_only"] is True
    assert rows[4]["depends_on"] == ["trips.archive"]

    assert main(["ls", "--project-dir", str(demo), "--tables", "-o", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [table["name"] for table in listed] == ["trips", "trips_daily"]
    assert listed[1]["depends_on"] == ["trips"]


def test_graph_formats(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["graph", "--project-dir", str(demo), "--format", "dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph maintainer {")
    assert '"trips.archive" -> "trips_daily.rollback" [style="dashed"];' in dot

    assert main(["graph", "--project-dir", str(demo), "--format", "json", "-s", "service:clean"]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert graph["order"] == ["trips.clean", "trips_daily.clean"]
    assert graph["edges"] == [{"from": "trips.clean", "to": "trips_daily.clean", "kind": "implied"}]


def test_compile_writes_resolved_specs_with_sources_and_the_graph(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["compile", "--project-dir", str(demo), "--vars", "{lake_root: s3://bucket/lake}"]) == 0

    manifest = json.loads((demo / "target" / "manifest.json").read_text())
    trips = manifest["tables"]["trips"]
    assert trips["spec"]["path"] == "s3://bucket/lake/trips"
    assert trips["spec"]["rollback"]["min_age"] == "1h"
    assert trips["spec"]["clean"]["commits_retained"] == 10
    assert trips["sources"]["clean.commits_retained"].startswith("tables/example.yml:")
    assert trips["sources"]["rollback.min_age"].startswith("maintainer_project.yml:")
    assert trips["sources"]["clean.hours_retained"] == "default"
    assert manifest["graph"]["order"][0] == "trips.rollback"
    assert manifest["metadata"]["target"] == "dev"


def test_commands_work_when_table_paths_do_not_exist(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(isolated, {"tables/a.yml": "version: 1\ntables:\n  - {name: a, path: s3://nowhere/a}\n"})

    for args in (["validate"], ["ls"], ["graph"], ["compile"]):
        assert main([*args, "--project-dir", str(isolated)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["ls", "--vars", "[1, 2]"],
        ["ls", "--vars", "{a: [1"],
        ["ls", "--select", "colour:red"],
        ["ls", "--threads", "0"],
        ["ls", "--output", "xml"],
        ["graph", "--format", "png"],
        ["validate", "--no-such-option"],
    ],
)
def test_usage_errors_exit_64(demo: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "--project-dir", str(demo)]) == 64
    assert "Traceback" not in capsys.readouterr().err


def test_unmatched_selector_warns_with_a_suggestion(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ls", "--project-dir", str(demo), "--select", "trip"]) == 0
    assert "did you mean 'trips'" in capsys.readouterr().err


def test_project_dir_from_the_environment(
    demo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAINTAINER_PROJECT_DIR", str(demo))
    capsys.readouterr()
    assert main(["ls", "--tables"]) == 0
    assert capsys.readouterr().out.split() == ["trips", "trips_daily"]


def test_every_template_file_is_package_data() -> None:
    """``maintainer init`` from an installed package needs all template files (dotfiles too) in the
    wheel: setuptools globs ``package-data`` like ``glob.glob`` does, through the symlink."""
    import glob

    tomllib = pytest.importorskip("tomllib")
    repo = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    package = repo / "maintainer"
    shipped = {
        Path(match).as_posix()
        for pattern in patterns["maintainer"]
        for match in glob.glob(pattern, root_dir=package, recursive=True)
    }
    template = package / "project_template"
    assert template.is_symlink() and template.resolve() == repo / "project_template"
    expected = {
        f"project_template/{p.relative_to(template).as_posix()}" for p in template.rglob("*") if p.is_file()
    }
    assert "project_template/.github/workflows/maintainer.yml" in expected
    assert expected <= shipped
