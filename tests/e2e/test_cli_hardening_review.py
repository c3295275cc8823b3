"""What a reviewer reads and what apply trusts, through the CLI (issue 29, items 5 to 7): a
partition name written by whoever writes the data cannot forge Markdown in the pull-request
comment; a secret of the environment never reaches an artifact or a log; a signed plan is
applied only once verified."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.markdown import ZWSP

ProjectWriter = Callable[[Path, str], Path]
Capture = pytest.CaptureFixture[str]
CLEAN_ONLY = "clean: {commits_retained: 1}\narchive: {enabled: false}"
FORGERY = "a`**Approved by @org/security**`b"
DECOYS = "![x](e.png) [link](e.html) <img src=x> | ``` @team www.e.com [red]r[/red]"


def hostile_table(path: Path, monkeypatch: pytest.MonkeyPatch, partitions: list[str]) -> None:
    """A copy-on-write v8 table whose two partition folders are named ``city=<name>``."""
    monkeypatch.setattr(WorkloadSpec, "partition_names", lambda self: list(partitions))
    workload = WorkloadSpec(partitions=len(partitions), file_groups=1, commits=6, rows_per_commit=10, seed=3)
    generate(str(path), DatagenSpec("t", "cow", 8, workload))
    monkeypatch.undo()


def local_project(project: ProjectWriter, table: Path, services: str) -> Path:
    root = project(table, services)
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    return root


def markdown_tokens(text: str) -> list[tuple[str, str]]:
    """(type, content) of every inline token of ``text`` read as GitHub-flavoured Markdown."""
    parser = MarkdownIt("gfm-like", {"linkify": False}).disable("linkify")
    return [
        (child.type, child.content)
        for token in parser.parse(text)
        if token.type == "inline"
        for child in token.children or []
    ]


# -- 5. partition names in the pull-request comment -------------------------------------------


def test_a_partition_name_cannot_forge_an_approval_in_the_plan_comment(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    table = tmp_path / "lake" / "t"
    hostile_table(table, monkeypatch, [FORGERY, DECOYS])
    root = local_project(project, table, CLEAN_ONLY)
    assert main(["plan", "--project-dir", str(root)]) == 0
    comment = (root / "target" / "plan" / "plan.md").read_text()

    tokens = markdown_tokens(comment)
    kinds = {kind for kind, _ in tokens}
    assert not kinds & {"link_open", "image", "html_inline"}, kinds
    bold, inside = [], False
    for kind, content in tokens:
        inside = (inside or kind == "strong_open") and kind != "strong_close"
        if inside and kind == "text":
            bold.append(content)
    assert bold and not any("Approved" in text for text in bold), bold
    texts = " ".join(content for kind, content in tokens if kind == "text")
    assert "@team" not in texts and "@org" not in texts and "www.e" not in texts
    codes = {content for kind, content in tokens if kind == "code_inline"}
    assert f"city={FORGERY}" in codes and f"city={DECOYS}" in codes  # the partitions, as named
    assert any(code.startswith(f"city={FORGERY}/") for code in codes)  # and their files

    capsys.readouterr()
    assert main(["show", str(root / "target" / "plan"), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == comment
    plain = (root / "target" / "plan" / "plan.json").read_text()
    assert json.dumps(f"city={FORGERY}")[1:-1] in plain and ZWSP not in plain  # data unchanged

    capsys.readouterr()
    assert main(["inspect", str(table), "--no-color"]) == 0  # rich markup in a name is shown as text
    out = capsys.readouterr().out
    assert f"city={FORGERY}" in out and "@team www.e.com [red]r" in out  # (the line may be cut)
