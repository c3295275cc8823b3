"""The state backend on real S3 servers (moto's and SeaweedFS), ``state: s3://bucket/prefix``
with the target's storage_options: two partial applies of different tables leave both in the
state; two applies racing in two processes lose no update; many updates racing on the one
manifest object are each merged (the refused conditional writes are read and merged again)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from maintainer.graph.manifest import Applied
from maintainer.runner.state_backend import MANIFEST_PATH, StateBackend
from maintainer.storage import conditional as conditional_module
from tests.support.s3_server import S3Endpoint
from tests.support.state_projects import StateProject, state_project
from tests.unit.graph.manifests import metadata, table
from tests.unit.graph.specs import spec

pytestmark = pytest.mark.servers

SERVERS = ["s3_server", "seaweedfs_server"]


@pytest.fixture(autouse=True)
def fresh_verification(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test checks its endpoint afresh (the check is once per endpoint and process)."""
    monkeypatch.setattr(conditional_module, "_VERIFIED", set())


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def options(server: S3Endpoint) -> dict[str, str]:
    return {key: str(value) for key, value in server.storage_options().items()}


def s3_state(server: S3Endpoint, bucket: str) -> dict[str, Any]:
    body = server.client().get_object(Bucket=bucket, Key=f"state/{MANIFEST_PATH}")["Body"].read()
    data: dict[str, Any] = json.loads(body)
    return data


def project_on(server: S3Endpoint, bucket: str, tmp_path: Path) -> StateProject:
    return state_project(tmp_path, server.create_bucket(bucket) + "/state", options(server))


@pytest.mark.parametrize("server_fixture", SERVERS)
def test_state_two_partial_applies_leave_both_tables(
    server_fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    server: S3Endpoint = request.getfixturevalue(server_fixture)
    bucket = f"state-partial-{server_fixture.split('_', maxsplit=1)[0]}"
    project = project_on(server, bucket, tmp_path)
    assert project.cli("apply", "--auto-approve", "--select", "a") == 0
    assert sorted(s3_state(server, bucket)["tables"]) == ["a"]
    assert project.cli("apply", "--auto-approve", "--select", "b") == 0
    state = s3_state(server, bucket)
    assert sorted(state["tables"]) == ["a", "b"]
    assert state["tables"]["a"]["applied"]["plan_id"] != state["tables"]["b"]["applied"]["plan_id"]
    runs = [key for key in server.keys(bucket) if key.startswith("state/runs/")]
    assert len(runs) == 4 and sum(key.endswith("/run_results.json") for key in runs) == 2
    assert not (project.root / "target" / "last_applied").exists()

    project.retain("b", 2)
    assert project.cli("plan") == 0
    text = project.plan_md()
    assert (
        "`clean.commits_retained`: 3 → 2 | 1 table (`b`) | **destructive**: less retention (commits) |"
        in text
    )
    assert "a new table" not in text


@pytest.mark.parametrize("server_fixture", SERVERS)
def test_state_two_applies_racing_in_two_processes_lose_no_update(
    server_fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    server: S3Endpoint = request.getfixturevalue(server_fixture)
    bucket = f"state-race-{server_fixture.split('_', maxsplit=1)[0]}"
    project = project_on(server, bucket, tmp_path)
    other = project.checkout(tmp_path / "runner-2")  # as two CI runners: each its own target/
    racing = [
        p.cli_process("apply", "--auto-approve", "--select", t) for p, t in ((project, "a"), (other, "b"))
    ]
    outputs = [process.communicate(timeout=600)[0] for process in racing]
    assert [process.returncode for process in racing] == [0, 0], outputs
    assert sorted(s3_state(server, bucket)["tables"]) == ["a", "b"], outputs


@pytest.mark.parametrize("server_fixture", SERVERS)
def test_state_updates_racing_on_one_object_are_each_merged(
    server_fixture: str, request: pytest.FixtureRequest
) -> None:
    server: S3Endpoint = request.getfixturevalue(server_fixture)
    bucket = f"state-many-{server_fixture.split('_', maxsplit=1)[0]}"
    root = server.create_bucket(bucket) + "/state"
    contenders = 6
    start = threading.Barrier(contenders)
    attempts: dict[int, int] = {}
    failures: list[BaseException] = []

    def apply(n: int) -> None:
        backend = StateBackend.at(root, options(server))
        start.wait()
        try:
            applied = Applied(f"plan-{n}", f"2026-11-28T00:00:0{n}.000Z", f"run-{n}")
            entry = table(spec(f"t{n}"))
            attempts[n] = backend.keep_applied({f"t{n}": entry}, applied, metadata()).attempts
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=apply, args=(n,)) for n in range(contenders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    state = s3_state(server, bucket)
    assert sorted(state["tables"]) == [f"t{n}" for n in range(contenders)]
    assert state["applied"]["plan_id"] == f"plan-{contenders - 1}"  # the latest apply
    assert max(attempts.values()) > 1  # they did race: some writes were refused and merged again
    if hasattr(server, "requests"):  # moto's log: the refusals were conditional-write refusals
        key = f"/{bucket}/state/{MANIFEST_PATH}"
        assert any(r.method == "PUT" and r.path == key and r.status == 412 for r in server.requests())
