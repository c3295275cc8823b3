"""What a reviewer reads and what apply trusts, through the CLI (issue 29, items 5 to 7): a
partition name written by whoever writes the data cannot forge Markdown in the pull-request
comment; a secret of the environment never reaches an artifact or a log; a signed plan is
applied only once verified."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from maintainer.artifact.canonical import canonical_body, compute_plan_id
from maintainer.artifact.directory import PLAN_KEY_ENV, PLAN_KEY_FILE_ENV, SIGNATURE_FIELD, sha256_hex
from maintainer.artifact.model import read_body_json
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.markdown import ZWSP
from maintainer.services.registry import service_for
from maintainer.storage import Storage

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


# -- 6. secrets of the environment -----------------------------------------------------------

SECRET = "tok-e2e-7b1f93c2"


def everything_written(root: Path) -> str:
    """Every file maintainer wrote in the project's target folder, as text."""
    files = sorted(p for p in (root / "target").rglob("*") if p.is_file())
    return "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in files)


def test_a_secret_rendered_into_a_manifest_is_refused_naming_file_and_line(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    table = tmp_path / "lake" / "t"
    hostile_table(table, monkeypatch, ["p0", "p1"])
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", SECRET)
    leak = "description: \"owner {{ env_var('MAINTAINER_SECRET_TOKEN') }}\""
    root = local_project(project, table, f"{leak}\n{CLEAN_ONLY}")
    for command in (["compile"], ["plan"], ["validate"]):
        capsys.readouterr()
        assert main([*command, "--project-dir", str(root)]) == 1, command
        out, err = capsys.readouterr()
        assert "tables/example.yml:5:18:" in err
        assert "env_var('MAINTAINER_SECRET_TOKEN') reads a secret" in err
        assert SECRET not in out + err
    assert not (root / "target").exists() or SECRET not in everything_written(root)

    # through profiles.yml's target (a Spark Connect token) into a manifest: refused too
    profiles = root / "profiles.yml"
    profiles.write_text(
        profiles.read_text().replace(
            'master: "local[*]"',
            "remote: \"sc://127.0.0.1:1/;token={{ env_var('MAINTAINER_SECRET_TOKEN') }}\"",
            1,
        )
    )
    leak = 'description: "{{ target.spark.remote }}"'
    local_project(project, table, f"{leak}\n{CLEAN_ONLY}")
    capsys.readouterr()
    assert main(["compile", "--project-dir", str(root)]) == 1
    out, err = capsys.readouterr()
    assert "holds the value of the secret MAINTAINER_SECRET_TOKEN" in err and SECRET not in out + err


def test_a_secret_in_profiles_is_masked_in_every_artifact_and_log(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    table = tmp_path / "lake" / "t"
    hostile_table(table, monkeypatch, ["p0", "p1"])
    root = local_project(project, table, CLEAN_ONLY)
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", SECRET)
    monkeypatch.setenv(PLAN_KEY_ENV, "plan-key-e2e-55aa")
    profiles = root / "profiles.yml"
    remote = "remote: \"sc://127.0.0.1:1/;token={{ env_var('MAINTAINER_SECRET_TOKEN') }}\""
    profiles.write_text(profiles.read_text().replace('master: "local[*]"', remote, 1))

    capsys.readouterr()
    main(["debug", "--project-dir", str(root), "--no-spark"])  # says where it cannot connect
    out, err = capsys.readouterr()
    assert "sc://127.0.0.1:1/;token=*****" in out + err and SECRET not in out + err
    main(["--log-format", "json", "debug", "--project-dir", str(root), "--no-spark"])
    out, err = capsys.readouterr()
    assert "token=*****" in out and SECRET not in out + err

    assert main(["compile", "--project-dir", str(root)]) == 0
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert main(["show", str(root / "target" / "plan"), "--format", "json"]) == 0
    assert main(["apply", "--project-dir", str(root)]) == 0  # engine local: no Spark
    out, err = capsys.readouterr()
    written = everything_written(root)
    assert (root / "target" / "run_results.json").is_file() and (root / "target" / "manifest.json").is_file()
    for secret in (SECRET, "plan-key-e2e-55aa"):
        assert secret not in out + err and secret not in written


def test_storage_credentials_from_a_secret_reach_no_artifact_and_no_log(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    """profiles.yml may read a secret for its storage options; planning a table behind them (an
    S3 endpoint that refuses connections: the table is blocked, its error printed and kept)
    shows and writes the secret nowhere."""
    monkeypatch.setenv("MAINTAINER_SECRET_S3_KEY", SECRET)
    root = project(tmp_path / "t", CLEAN_ONLY)
    manifest = root / "tables" / "example.yml"
    manifest.write_text(manifest.read_text().replace(str(tmp_path / "t"), "s3://bucket/t"))
    profiles = root / "profiles.yml"
    options = (
        'storage_options: {endpoint_override: "http://127.0.0.1:1", region: us-east-1, access_key: ak, '
        "secret_key: \"{{ env_var('MAINTAINER_SECRET_S3_KEY') }}\"}"
    )
    profiles.write_text(profiles.read_text().replace("engine: auto", f"engine: local\n      {options}", 1))
    capsys.readouterr()
    assert main(["compile", "--project-dir", str(root)]) == 0
    assert main(["plan", "--project-dir", str(root)]) == 3  # the table cannot be read: blocked
    assert main(["show", str(root / "target" / "plan"), "--format", "json"]) == 0
    main(["debug", "--project-dir", str(root), "--no-spark"])
    out, err = capsys.readouterr()
    assert "cannot be read" in out and "127.0.0.1:1" in out  # the error (in the plan), with the endpoint
    assert SECRET not in out + err and SECRET not in everything_written(root)


# -- 7. a signed plan is applied only once verified ---------------------------------------------


def files_below(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and ".maintainer" not in p.parts}


def forge(plan_file: Path, data: dict[str, Any]) -> None:
    """Save an edited plan as an attacker with maintainer at hand does: the plan id recomputed
    and the payloads (which carry it) rebuilt from the edited body, with their hashes."""
    body = {k: v for k, v in data.items() if k not in ("plan_id", "payloads", SIGNATURE_FIELD)}
    data["plan_id"] = compute_plan_id(body)
    for table in read_body_json(canonical_body(body)).tables:
        for node in table.nodes:
            service = service_for(node.service)
            rebuilt = service.payloads(node, Storage(table.path), data["plan_id"]) if service else {}
            for name, payload in rebuilt.items():
                (plan_file.parent / "payloads" / name).write_bytes(payload)
                data["payloads"][name] = sha256_hex(payload)
    plan_file.write_text(json.dumps(data))


def test_an_edited_signed_plan_is_refused_where_the_key_is_unset_or_empty(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    table = tmp_path / "lake" / "t"
    hostile_table(table, monkeypatch, ["p0", "p1"])
    root = local_project(project, table, CLEAN_ONLY)
    monkeypatch.setenv(PLAN_KEY_ENV, "the-team-key")
    assert main(["plan", "--project-dir", str(root)]) == 0
    plan_file = root / "target" / "plan" / "plan.json"
    data = json.loads(plan_file.read_text())
    assert data[SIGNATURE_FIELD].startswith("hmac-sha256:")
    data["tables"][0]["nodes"][-1]["reasons"].append("approved by @org/security")
    forge(plan_file, data)  # the signature kept: only the key could make a new one
    before = files_below(table)

    for unset in ("", None):  # the key variable empty, then unset: nothing verifies the signature
        if unset is None:
            monkeypatch.delenv(PLAN_KEY_ENV)
        else:
            monkeypatch.setenv(PLAN_KEY_ENV, unset)
        monkeypatch.delenv(PLAN_KEY_FILE_ENV, raising=False)
        capsys.readouterr()
        assert main(["apply", "--project-dir", str(root)]) == 1
        err = capsys.readouterr().err
        assert "the plan is signed, but no key is configured to verify it" in err
        assert str(plan_file) in err and "--allow-unverified" in err
        assert files_below(table) == before
        assert not (root / "target" / "run_results.json").exists()

    assert main(["show", str(root / "target" / "plan")]) == 0  # shown, said unverified
    assert "signature not verified" in capsys.readouterr().err
    monkeypatch.setenv(PLAN_KEY_ENV, "the-team-key")
    assert main(["show", str(root / "target" / "plan")]) == 1  # with the key, show finds the edit
    assert "signature does not match" in capsys.readouterr().err

    monkeypatch.delenv(PLAN_KEY_ENV)
    assert main(["plan", "--project-dir", str(root)]) == 0  # unsigned
    monkeypatch.setenv(PLAN_KEY_ENV, "the-team-key")
    capsys.readouterr()
    assert main(["show", str(root / "target" / "plan")]) == 0
    assert "not signed, and MAINTAINER_PLAN_KEY is set: apply refuses it" in capsys.readouterr().err
    assert main(["apply", "--project-dir", str(root), "--allow-unverified"]) == 1
    assert "the plan is not signed, and MAINTAINER_PLAN_KEY is set" in capsys.readouterr().err
    assert files_below(table) == before


def test_a_partition_name_cannot_rewrite_the_terminal_review(
    project: ProjectWriter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture
) -> None:
    """Escape sequences in a name would move the cursor up and erase the lines above (the files
    a clean deletes); a newline would start a forged line of the plan."""
    table = tmp_path / "lake" / "t"
    eraser = "p\x1b[1A\x1b[2K\x1b[1A\x1b[2K\nt.clean: nothing to do"
    hostile_table(table, monkeypatch, [eraser, "p1"])
    root = local_project(project, table, CLEAN_ONLY)
    capsys.readouterr()
    assert main(["plan", "--project-dir", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err
    assert "t.clean: nothing to do" not in out.splitlines()  # not a line of its own
    assert "p\\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\nt.clean: nothing to do/" in out  # shown, escaped
    assert main(["show", str(root / "target" / "plan")]) == 0
    assert "\x1b" not in capsys.readouterr().out
    assert main(["show", str(root / "target" / "plan"), "--format", "markdown"]) == 0
    assert "\x1b" not in capsys.readouterr().out
