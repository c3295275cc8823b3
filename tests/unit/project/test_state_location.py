"""``state:``: where apply keeps the applied state: the profile target's, else the project's,
else target_path; a folder is relative to the project; only stores with conditional writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.errors import ManifestError
from maintainer.project.loader import load_project
from maintainer.project.models import check_state_location


@pytest.fixture(autouse=True)
def profiles_in_the_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)


def project_with(tmp_path: Path, project_state: str | None, target_state: str | None) -> Path:
    root = tmp_path / "p"
    assert main(["init", str(root)]) == 0
    if project_state is not None:
        config = root / "maintainer_project.yml"
        config.write_text(config.read_text() + f"state: {json.dumps(project_state)}\n")
    dev = {"engine": "local"} if target_state is None else {"engine": "local", "state": target_state}
    (root / "profiles.yml").write_text(json.dumps({"p": {"target": "dev", "outputs": {"dev": dev}}}))
    return root


@pytest.mark.parametrize(
    ("project_state", "target_state", "expected"),
    [
        (None, None, "{root}/target"),
        ("", "", "{root}/target"),
        ("shared", None, "{root}/shared"),
        ("/abs/state", None, "/abs/state"),
        ("shared", "s3://bucket/state", "s3://bucket/state"),
        ("gs://bucket/state", "", "gs://bucket/state"),
    ],
)
def test_the_target_wins_then_the_project_then_target_path(
    tmp_path: Path, project_state: str | None, target_state: str | None, expected: str
) -> None:
    root = project_with(tmp_path, project_state, target_state)
    assert load_project(root).state_location == expected.format(root=root)


@pytest.mark.parametrize(
    "location", ["hdfs://nn:8020/state", "abfs://c@a.dfs.core.windows.net/s", "ftp://x/y"]
)
def test_only_stores_with_conditional_writes(tmp_path: Path, location: str) -> None:
    with pytest.raises(ValueError, match="has no conditional writes"):
        check_state_location(location)
    root = project_with(tmp_path, location, None)
    with pytest.raises(ManifestError, match=r"maintainer_project.yml:\d+:\d+"):
        load_project(root)


@pytest.mark.parametrize("location", ["s3://b/p", "S3A://b/p", "gs://b/p", "file:///tmp/s", "state", ""])
def test_folders_and_object_store_prefixes_are_taken(location: str) -> None:
    assert check_state_location(location) == location
