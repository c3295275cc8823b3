"""Hostile manifests through the CLI (issue 12): each is refused by ``validate`` and ``plan`` with
exit 1, a message naming file:line, and no traceback, within seconds.

No table is read and Spark is not started: a project is made with ``maintainer init`` and its
manifest replaced by the attack. The crash cases (a segmentation fault in the YAML composer) run
the CLI in a child process, so a crash is seen as a return code other than 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from maintainer.cli import main

MANIFEST = "tables/example.yml"
SECONDS = 5.0
"""Generous bound for CI; each refusal takes well under 2 s on a quiet machine."""


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    assert main(["init", str(project)]) == 0
    return project


def table(name: str, path: str) -> str:
    return f"  - name: {name}\n    path: {path}\n    clean: {{commits_retained: 2}}\n"


def billion_laughs() -> str:
    lines = ["version: 1", "x-lol: &l0 [lol]"]
    lines += [f"x-l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 10) + "]" for n in range(1, 10)]
    return "\n".join(lines) + "\ntables:\n" + table("t", "/lake/t")


def deep_lists(depth: int) -> str:
    return (
        "version: 1\ntables:\n"
        + table("t", "/lake/t")
        + "    description: "
        + "[" * depth
        + "]" * depth
        + "\n"
    )


def deep_mappings(depth: int) -> str:
    return (
        "version: 1\ntables:\n"
        + table("t", "/lake/t")
        + "    x: "
        + "{a: " * depth
        + "1"
        + "}" * depth
        + "\n"
    )


def templated_path(template: str) -> str:
    return "version: 1\ntables:\n" + table("t", f'"/lake/{template}"')


def refused(root: Path, command: str, manifest: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Write ``manifest``, run ``command`` in-process; assert exit 1 in time; return stderr."""
    (root / MANIFEST).write_text(manifest)
    capsys.readouterr()
    started = time.perf_counter()
    code = main([command, "--project-dir", str(root)])
    elapsed = time.perf_counter() - started
    captured = capsys.readouterr()
    assert code == 1, captured
    assert elapsed < SECONDS, f"{command} took {elapsed:.1f} s"
    assert "Traceback" not in captured.err + captured.out
    return captured.err


COMMANDS = pytest.mark.parametrize("command", ["validate", "plan"])


@COMMANDS
def test_billion_laughs(root: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(root, command, billion_laughs(), capsys)

    assert f"{MANIFEST}:7:" in err
    assert "aliases expand the document past 100000 values (alias '*l4')" in err
    assert "hint: an anchor/alias chain that multiplies values is refused" in err


@COMMANDS
@pytest.mark.parametrize("manifest", [deep_lists(5_000), deep_mappings(5_000)], ids=["lists", "mappings"])
def test_5000_deep_nesting(
    root: Path, command: str, manifest: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(root, command, manifest, capsys)

    assert f"{MANIFEST}:6:" in err
    assert "nesting deeper than 64 levels" in err


def test_a_manifest_over_one_mebibyte(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = "version: 1\ntables:\n" + table("t", "/lake/t") + "# " + "x" * (1024 * 1024) + "\n"

    err = refused(root, "validate", manifest, capsys)

    assert f"{MANIFEST}:1: file is larger than 1048576 bytes" in err


@pytest.mark.parametrize("command", ["validate", "plan"])
@pytest.mark.parametrize("depth", [50_000, 500_000])
def test_deep_nesting_that_crashed_the_process_is_refused_in_a_child(
    root: Path, command: str, depth: int
) -> None:
    (root / MANIFEST).write_text(deep_lists(depth))

    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "maintainer.cli", command, "--project-dir", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(root.parent / "home")},
    )

    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert time.perf_counter() - started < SECONDS + 5  # a fresh interpreter imports the tool
    assert f"{MANIFEST}:6:" in result.stderr
    assert "nesting deeper than 64 levels" in result.stderr
    assert "Traceback" not in result.stderr


@COMMANDS
@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
            "range() of 100000 numbers (at most 10000)",
        ),
        (
            "{% for i in range(10000) %}{% for j in range(10000) %}x{% endfor %}{% endfor %}",
            "rendered value longer than 100000 characters",
        ),
        (
            "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
            "templates took more than 500000 steps",
        ),
        ("{{ 9**999999999 }}", "a number larger than 2**256"),
        ("{{ 'x' * 999999999 }}", "a '*' repetition would make a value of more than 100000 characters"),
    ],
    ids=["range-100000", "output", "steps", "power", "repeat"],
)
def test_hostile_templates(
    root: Path, command: str, template: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(root, command, templated_path(template), capsys)

    assert f"{MANIFEST}:4:11: {message}" in err
    assert "hint:" in err


def test_templates_in_the_project_vars_are_bounded_too(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project_file = root / "maintainer_project.yml"
    text = project_file.read_text()
    hostile = '  lake_root: "{{ 9**999999999 }}"\n'
    (line,) = [n for n, value in enumerate(text.splitlines()) if value.startswith("  lake_root:")]
    project_file.write_text(text.replace(text.splitlines()[line] + "\n", hostile))
    (root / MANIFEST).write_text(templated_path("t"))
    capsys.readouterr()

    started = time.perf_counter()
    assert main(["validate", "--project-dir", str(root)]) == 1
    assert time.perf_counter() - started < SECONDS
    assert f"maintainer_project.yml:{line + 1}:14: a number larger than 2**256" in capsys.readouterr().err


@COMMANDS
@pytest.mark.parametrize(
    "second",
    ["/lake/t/", "file:///lake/t", "/lake/x/../t", "s3://bucket/t/"],
    ids=["trailing-slash", "file-scheme", "dot-dot", "object-store"],
)
def test_two_entries_for_one_table(
    root: Path, command: str, second: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = "s3://bucket/t" if second.startswith("s3://") else "/lake/t"
    manifest = "version: 1\ntables:\n" + table("t", first) + table("t_again", second)

    err = refused(root, command, manifest, capsys)

    assert f"{MANIFEST}:6: tables 't' ({MANIFEST}:3, path '{first}') and 't_again' ({MANIFEST}:6" in err
    assert "are the same table" in err
    assert "hint: keep one entry for the table: remove 't_again' or merge it into 't'" in err


def test_a_sound_manifest_still_validates(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = "".join(table(f"t{n}", f"/lake/t{n}") for n in range(200))
    (root / MANIFEST).write_text("version: 1\ntables:\n" + tables)

    assert main(["validate", "--project-dir", str(root)]) == 0, capsys.readouterr()
