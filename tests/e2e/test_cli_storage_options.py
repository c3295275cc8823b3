"""``inspect`` and ``datagen`` take a table's storage options like every other command: a project
target's (``--project-dir``/``--target``) with ``--storage-option KEY=VALUE`` on top."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.commands import datagen_cmd, inspect_cmd
from maintainer.datagen.generator import generate
from maintainer.hudi.table.state import TableState, open_table


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The storage options ``inspect`` opened its table with."""
    seen: list[dict[str, Any]] = []
    real: Callable[..., TableState] = open_table

    def spy(path: str, options: Any = None, *args: Any, **kwargs: Any) -> TableState:
        seen.append(dict(options or {}))
        return real(path, options, *args, **kwargs)

    monkeypatch.setattr(inspect_cmd, "open_table", spy)
    return seen


def table(tmp_path: Path) -> str:
    path = str(tmp_path / "t")
    assert main(["datagen", path, "--commits", "1", "--engine", "local"]) == 0
    return path


def test_storage_options_from_the_command_line(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    path = table(tmp_path)
    assert main(["inspect", path, "--storage-option", "region=eu-west-1", "--storage-option", "a=b=c"]) == 0
    assert opened == [{"region": "eu-west-1", "a": "b=c"}]


def test_storage_options_of_a_project_target_with_the_command_lines_on_top(
    tmp_path: Path, opened: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    assert main(["init", str(tmp_path / "proj")]) == 0
    profiles = tmp_path / "proj" / "profiles.yml"
    extra = "      engine: auto\n      storage_options: {region: us-east-1, retry: '3'}"
    text = profiles.read_text().replace("      engine: auto", extra)
    profiles.write_text(text)
    path = table(tmp_path)
    args = ["inspect", path, "--project-dir", str(tmp_path / "proj"), "--storage-option", "region=eu-west-1"]
    assert main(args) == 0
    assert opened == [{"region": "eu-west-1", "retry": "3"}]


def test_bad_storage_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = table(tmp_path)
    assert main(["inspect", path, "--storage-option", "no-equals-sign"]) == 64
    assert "'no-equals-sign' is not KEY=VALUE" in capsys.readouterr().err
    assert main(["inspect", path, "--target", "prod"]) == 64
    assert "--target needs --project-dir" in capsys.readouterr().err


def test_datagen_writes_with_the_storage_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = generate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("storage_options"))
        return real(*args, **kwargs)

    monkeypatch.setattr(datagen_cmd, "generate", spy)
    args = ["--commits", "1", "--engine", "local", "--storage-option", "region=eu-west-1"]
    assert main(["datagen", str(tmp_path / "t"), *args]) == 0
    assert seen == [{"region": "eu-west-1"}]
