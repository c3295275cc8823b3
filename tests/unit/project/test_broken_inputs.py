"""The corpus of broken inputs: each gives exit 1 and one message with file:line and a hint."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from maintainer.cli import main
from tests.unit.project.projects import write_project


@dataclass(frozen=True)
class Broken:
    id: str
    files: dict[str, str | None]
    message: str
    where: str
    hint: str = ""
    args: tuple[str, ...] = field(default=())


def manifest(body: str) -> dict[str, str | None]:
    return {"tables/a.yml": "version: 1\ntables:\n" + body}


def project(body: str) -> dict[str, str | None]:
    return {"maintainer_project.yml": body}


TABLE_A = "  - name: a\n    path: /lake/a\n"
PROJECT_HEAD = "name: demo\nversion: 1\nprofile: demo\n"

CASES = [
    Broken(
        "bad-yaml-flow", manifest(TABLE_A + "    tags: [oops\n"), "invalid YAML", r"tables/a\.yml:\d+:\d+"
    ),
    Broken(
        "bad-yaml-indent",
        {"tables/a.yml": "version: 1\n tables: x\n  y: z\n"},
        "invalid YAML",
        r"tables/a\.yml:2:\d+",
    ),
    Broken(
        "python-tag",
        manifest(TABLE_A + "    description: !!python/object/apply:os.system [ls]\n"),
        "invalid YAML",
        r"tables/a\.yml:5:\d+",
    ),
    Broken(
        "duplicate-key",
        manifest(TABLE_A + "    path: /lake/b\n"),
        "duplicate key 'path' (first at line 4)",
        r"tables/a\.yml:5:5",
        "only one value per key",
    ),
    Broken(
        "duplicate-key-project",
        project(PROJECT_HEAD + "profile: other\n"),
        "duplicate key 'profile'",
        r"maintainer_project\.yml:4:1",
    ),
    Broken(
        "unknown-option",
        manifest(TABLE_A + "    clean:\n      comits_retained: 5\n"),
        "unknown option 'comits_retained' in clean",
        r"tables/a\.yml:6:7",
        "did you mean 'commits_retained'",
    ),
    Broken(
        "unknown-table-key",
        manifest("  - name: a\n    pth: /lake/a\n    path: /lake/a\n"),
        "unknown option 'pth'",
        r"tables/a\.yml:4:5",
        "did you mean 'path'",
    ),
    Broken(
        "unknown-nested-option",
        manifest(TABLE_A + "    compaction:\n      trigger:\n        max_commits: 3\n"),
        "unknown option 'max_commits' in compaction.trigger",
        r"tables/a\.yml:7:9",
        "max_delta_commits",
    ),
    Broken(
        "unknown-project-key",
        project(PROJECT_HEAD + "manifest_path: [tables]\n"),
        "unknown option 'manifest_path'",
        r"maintainer_project\.yml:4:1",
        "did you mean 'manifest_paths'",
    ),
    Broken(
        "unknown-top-level-key",
        {"tables/a.yml": "version: 1\ntabels: []\n"},
        "unknown top-level key 'tabels'",
        r"tables/a\.yml:2:1",
        "did you mean 'tables'",
    ),
    Broken(
        "wrong-type-int",
        manifest(TABLE_A + "    clean:\n      commits_retained: ten\n"),
        "clean.commits_retained",
        r"tables/a\.yml:6:25",
        "whole number",
    ),
    Broken("wrong-type-list", manifest(TABLE_A + "    tags: 5\n"), "tags", r"tables/a\.yml:5:11", "list"),
    Broken(
        "wrong-type-block",
        manifest(TABLE_A + "    archive: yes\n"),
        "archive",
        r"tables/a\.yml:5:14",
        "mapping",
    ),
    Broken(
        "out-of-range",
        manifest(TABLE_A + "    clean:\n      commits_retained: 0\n"),
        "greater than or equal to 1",
        r"tables/a\.yml:6:25",
        ">= 1",
    ),
    Broken(
        "bad-choice",
        manifest(TABLE_A + "    clean:\n      policy: keep_latest_comits\n"),
        "'keep_latest_comits' is not allowed",
        r"tables/a\.yml:6:15",
        "did you mean 'keep_latest_commits'",
    ),
    Broken(
        "bad-duration",
        manifest(TABLE_A + "    rollback:\n      min_age: 1 hour\n"),
        "is not a duration",
        r"tables/a\.yml:6:16",
    ),
    Broken(
        "bad-instant",
        manifest(TABLE_A + "    savepoints:\n      instants: ['2024']\n"),
        "savepoints.instants[0]",
        r"tables/a\.yml:6:18",
    ),
    Broken(
        "bad-regex",
        manifest(
            TABLE_A + "    compaction:\n      strategy: {name: partition_regex, partition_regex: '('}\n"
        ),
        "not a valid regular expression",
        r"tables/a\.yml:6:\d+",
    ),
    Broken(
        "rule-min-vs-retained",
        manifest(TABLE_A + "    archive:\n      keep_min_commits: 10\n"),
        "keep_min_commits (10) must be greater than clean.commits_retained (10)",
        r"tables/a\.yml:6:25",
        "at least 11",
    ),
    Broken(
        "rule-max-vs-min",
        manifest(TABLE_A + "    archive: {keep_min_commits: 25, keep_max_commits: 20}\n"),
        "keep_max_commits (20) must be greater than",
        r"tables/a\.yml:5:\d+",
        "at least 26",
    ),
    Broken(
        "rule-regex-needed",
        manifest(TABLE_A + "    compaction:\n      strategy: {name: partition_regex}\n"),
        "needs strategy.partition_regex",
        r"tables/a\.yml:6:\d+",
        "partition_regex:",
    ),
    Broken(
        "rule-empty-savepoints",
        manifest(TABLE_A + "    savepoints: {}\n"),
        "savepoints needs 'instants' or 'rolling'",
        r"tables/a\.yml:5:\d+",
    ),
    Broken(
        "missing-path",
        manifest("  - name: a\n    tags: [x]\n"),
        "missing required option 'path'",
        r"tables/a\.yml:3:\d+",
        "add 'path: ...'",
    ),
    Broken("bad-table-name", manifest("  - name: a.b\n    path: /lake/a\n"), "name", r"tables/a\.yml:3:11"),
    Broken(
        "manifest-version",
        {"tables/a.yml": "version: 2\ntables: []\n"},
        "manifest version must be 1",
        r"tables/a\.yml:1:10",
        "version: 1",
    ),
    Broken(
        "duplicate-table",
        {"tables/b.yml": "version: 1\ntables:\n  - name: a\n    path: /lake/b\n"},
        "duplicate table name 'a' (first defined at tables/a.yml:3)",
        r"tables/b\.yml:3",
        "unique",
    ),
    Broken(
        "unknown-depends-on",
        manifest(TABLE_A + "  - name: b\n    path: /lake/b\n    depends_on: [aa]\n"),
        "depends on unknown table 'aa'",
        r"tables/a\.yml:7:18",
        "did you mean 'a'",
    ),
    Broken(
        "self-depends-on",
        manifest(TABLE_A + "    depends_on: [a]\n"),
        "depends on itself",
        r"tables/a\.yml:5:18",
    ),
    Broken(
        "cycle",
        manifest(
            "  - {name: a, path: /a, depends_on: [c]}\n  - {name: b, path: /b, depends_on: [a]}\n"
            "  - {name: c, path: /c, depends_on: [b]}\n"
        ),
        "depends_on cycle: a -> c -> b -> a",
        r"tables/a\.yml:3:38",
        "remove one of these",
    ),
    Broken(
        "undefined-var",
        manifest("  - name: a\n    path: \"{{ var('nope') }}/a\"\n"),
        "var('nope') is not defined",
        r"tables/a\.yml:4:11",
        "--vars",
    ),
    Broken(
        "undefined-name",
        manifest('  - name: a\n    path: "{{ lake }}/a"\n'),
        "'lake' is undefined",
        r"tables/a\.yml:4:11",
        "var('name')",
    ),
    Broken(
        "missing-env-var",
        manifest("  - name: a\n    path: \"{{ env_var('NO_SUCH_VAR_4711') }}\"\n"),
        "environment variable NO_SUCH_VAR_4711 is not set",
        r"tables/a\.yml:4:11",
        "export",
    ),
    Broken(
        "sandbox-escape",
        manifest("  - name: a\n    path: \"{{ ''.__class__.__mro__[1].__subclasses__() }}\"\n"),
        "refused by the sandbox",
        r"tables/a\.yml:4:11",
        "var(), env_var()",
    ),
    Broken(
        "template-syntax",
        manifest("  - name: a\n    path: \"{{ var('root' }}\"\n"),
        "invalid template",
        r"tables/a\.yml:4:11",
        "braces",
    ),
    Broken(
        "missing-profile",
        project("name: demo\nversion: 1\nprofile: other\n"),
        "profile 'other' is not in profiles.yml",
        r"maintainer_project\.yml:3:10",
        "demo",
    ),
    Broken(
        "missing-target",
        {"profiles.yml": "demo:\n  target: prod\n  outputs:\n    dev: {}\n"},
        "target 'prod' is not an output of profile 'demo'",
        r"profiles\.yml:2:11",
        "dev",
    ),
    Broken(
        "unknown-cli-target",
        {},
        "target 'prd' is not an output",
        r"profiles\.yml:3:3",
        "valid targets: dev",
        ("--target", "prd"),
    ),
    Broken(
        "master-and-remote",
        {
            "profiles.yml": "demo:\n  target: dev\n  outputs:\n    dev:\n      spark:\n"
            "        master: local\n        remote: sc://x\n"
        },
        "either spark.master or spark.remote",
        r"profiles\.yml:\d+:\d+",
    ),
    Broken(
        "profile-unknown-option",
        {"profiles.yml": "demo:\n  target: dev\n  outputs:\n    dev:\n      thread: 3\n"},
        "unknown option 'thread' in outputs.dev",
        r"profiles\.yml:5:7",
        "did you mean 'threads'",
    ),
    Broken(
        "missing-manifest-folder",
        project(PROJECT_HEAD + "manifest_paths: [tables, more]\n"),
        "manifest path 'more' does not exist",
        r"maintainer_project\.yml:4:\d+",
        "manifest_paths",
    ),
    Broken(
        "folder-defaults-unknown",
        {"tables/_defaults.yml": "clean:\n  retained: 3\n"},
        "unknown option 'retained' in clean",
        r"tables/_defaults\.yml:2:3",
        "did you mean",
    ),
    Broken(
        "project-defaults-wrong",
        project(PROJECT_HEAD + "defaults:\n  archive: {keep_max_commits: -1}\n"),
        "defaults.archive.keep_max_commits",
        r"maintainer_project\.yml:5:\d+",
        ">= 1",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_broken_input_gives_one_located_error(
    case: Broken, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_project(tmp_path, case.files)

    code = main(["validate", "--project-dir", str(tmp_path), *case.args])

    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    assert err.count("error:") == 1, err
    assert case.message in err, err
    assert re.search(rf"error: {case.where}\b", err), err
    assert "hint:" in err
    assert case.hint in err.split("hint:", 1)[1], err


def test_corpus_has_at_least_25_cases() -> None:
    assert len(CASES) >= 25
    assert len({case.id for case in CASES}) == len(CASES)


def test_missing_profiles_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_project(tmp_path, {"profiles.yml": None})

    assert main(["validate", "--project-dir", str(tmp_path)]) == 1

    err = capsys.readouterr().err
    assert "no profiles.yml found for profile 'demo'" in err
    assert "maintainer_project.yml:3:10" in err


def test_missing_project_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--project-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no maintainer_project.yml" in err
    assert "maintainer init" in err


def test_several_bad_tables_are_reported_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = (
        "  - {name: a, path: /a, clean: {commits_retained: 0}}\n"
        "  - {name: b, path: /b, archive: {keep_min: 1}}\n"
    )
    write_project(tmp_path, manifest(body))

    assert main(["validate", "--project-dir", str(tmp_path)]) == 1

    err = capsys.readouterr().err
    assert "tables/a.yml:3:" in err and "tables/a.yml:4:" in err
    assert "2 errors" in err
