"""Orphan files on a real S3 server (moto): a failed write whose instant files were removed
leaves objects no instant accounts for; ``plan`` lists them once old enough (the clock moved
8 days on: an object's age is its upload time), ``apply`` deletes or quarantines them and
``quarantine restore`` brings the same bytes back; ``hudi`` reads the same rows over S3, and
nothing outside the table's prefix is touched."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from maintainer.commands import plan_cmd
from maintainer.services.orphans import apply as orphans_apply
from maintainer.services.orphans.node import plan_orphan_result
from tests.servers.test_s3_end_to_end import (
    S3Project,
    bucket_with_neighbours,
    expected_rows,
    s3_project,
    s3_rows,
)
from tests.support.s3_server import S3Server

pytestmark = pytest.mark.servers

OFF = "\n".join(f"    {s}: {{enabled: false}}" for s in ("rollback", "compaction", "clean", "archive"))


EIGHT_DAYS = timedelta(days=8)


def _later() -> datetime:
    return datetime.now(UTC) + EIGHT_DAYS


def _forget_the_failed_write(project: S3Project) -> list[str]:
    """Delete the failed write's instant objects: its data objects and its markers belong to no
    instant now. Returns their keys."""
    client = project.server.client()
    prefix = project.table.removeprefix(f"s3://{project.bucket}/") + "/"
    keys = project.server.keys(project.bucket)
    instants = [k for k in keys if k.startswith(prefix + ".hoodie/timeline/") and k.endswith(".inflight")]
    inflight = max(k for k in instants if ".deltacommit." in k)  # the failed write: the newest
    failed = inflight.rsplit("/", 1)[1].split(".")[0]
    for key in keys:
        if key.startswith(prefix + ".hoodie/timeline/") and key.rsplit("/", 1)[1].startswith(failed):
            client.delete_object(Bucket=project.bucket, Key=key)
    data_and_markers = [k for k in keys if k.startswith(prefix) and failed in k]
    return [k for k in data_and_markers if "/.hoodie/" not in k or f"/.hoodie/.temp/{failed}/" in k]


@pytest.mark.parametrize("quarantine", ["", ", quarantine: .quarantine"], ids=["delete", "quarantine"])
def test_orphans_on_s3_are_removed_and_rows_stay(
    quarantine: str, s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "orphans-q" if quarantine else "orphans-d"
    table = bucket_with_neighbours(s3_server, name)
    project = s3_project(s3_server, table, 8, tmp_path, monkeypatch)
    services = f"{OFF}\n    orphan_files: {{min_age: 7d{quarantine}}}"
    (project.root / "tables" / "example.yml").write_text(
        f"version: 1\ntables:\n  - name: t\n    path: {table}\n{services}\n"
    )
    dangling = _forget_the_failed_write(project)
    assert dangling
    before = project.outside_objects()
    bytes_before = {k: s3_server.client().get_object(Bucket=name, Key=k)["Body"].read() for k in dangling}

    assert project.cli("plan") == 0
    assert project.nodes()["t.orphan_files"]["status"] == "no_op"  # young: just written
    monkeypatch.setattr(plan_cmd, "utc_now", _later)
    # apply re-derives at its own clock: 8 days on too
    monkeypatch.setattr(
        orphans_apply, "plan_orphan_result", lambda t, s, now: plan_orphan_result(t, s, now + EIGHT_DAYS)
    )
    assert project.cli("plan") == 0
    node = project.nodes()["t.orphan_files"]
    prefix = table.removeprefix(f"s3://{name}/") + "/"
    assert {a["target"] for a in node["actions"] if a["kind"] == "remove_orphan_file"} == {
        k.removeprefix(prefix) for k in dangling
    }
    assert project.cli("apply") == 0, project.results()
    keys = set(s3_server.keys(name))
    assert not keys & set(dangling)
    assert s3_rows(table, s3_server) == expected_rows(tmp_path)
    assert project.outside_objects() == before
    if quarantine:
        assert project.cli("quarantine", "restore", "--select", "t") == 0
        client = s3_server.client()
        assert {k: client.get_object(Bucket=name, Key=k)["Body"].read() for k in dangling} == bytes_before
        assert not [k for k in s3_server.keys(name) if "/.hoodie/.quarantine/" in k]
