"""``inspect``'s argument: a path, or the name of a table of the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.commands.inspect_cmd import table_path

TABLES = {"trips": "/data/lake/trips", "s3://x": "/never"}


def test_a_project_table_name_is_its_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert table_path("trips", TABLES) == "/data/lake/trips"
    assert table_path("rides", TABLES) == "rides"  # not a table of the project: a path
    assert table_path("trips", {}) == "trips"  # no project


def test_an_existing_path_and_a_uri_are_never_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "trips").mkdir()
    assert table_path("trips", TABLES) == "trips"
    assert table_path("s3://x", TABLES) == "s3://x"
