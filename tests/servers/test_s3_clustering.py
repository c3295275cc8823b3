"""Clustering on a real S3 server (moto), through the CLI: a table with a failed write and (v8)
a metadata table; the rollback runs first, then the clustering rewrites every file group of
each partition into a new one, sorted; its requested plan names the slices by their ``s3://``
URIs, as Hudi writes absolute paths; ``hudi`` reads the same rows over S3, and nothing outside
the table's prefix is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.hudi import payloads
from tests.servers.test_s3_end_to_end import bucket_with_neighbours, expected_rows, s3_project, s3_rows
from tests.support.s3_server import S3Server

pytestmark = pytest.mark.servers

SERVICES = "\n".join(
    [
        "    rollback: {min_age: 0s}",
        *(f"    {s}: {{enabled: false}}" for s in ("compaction", "clean", "archive")),
        "    clustering: {max_commits: 0, sort_columns: [rider]}",
    ]
)


@pytest.mark.parametrize("version", [6, 8])
def test_clustering_on_s3_keeps_the_rows(
    version: int, s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"clustering-v{version}"
    table = bucket_with_neighbours(s3_server, name)
    project = s3_project(s3_server, table, version, tmp_path, monkeypatch)
    (project.root / "tables" / "example.yml").write_text(
        f"version: 1\ntables:\n  - name: t\n    path: {table}\n{SERVICES}\n"
    )
    rows = expected_rows(tmp_path)
    before = project.outside_objects()
    assert project.cli("plan") == 0
    groups = [a for a in project.nodes()["t.clustering"]["actions"] if a["kind"] == "cluster_group"]
    assert len(groups) == 2
    payload = (project.root / "target" / "plan" / "payloads" / "t.clustering.requested").read_bytes()
    requested = payloads.decode_requested_replace_metadata(payload, "payload")
    assert requested is not None and requested.clustering_plan is not None
    paths = [s.data_file_path for g in requested.clustering_plan.input_groups or () for s in g.slices or ()]
    assert paths and all(p and p.startswith(f"{table}/") for p in paths)

    assert project.cli("apply") == 0
    assert s3_rows(table, s3_server) == rows
    assert project.outside_objects() == before
    prefix = table.removeprefix(f"s3://{name}/") + "/"
    timeline = [k for k in s3_server.keys(name) if k.startswith(prefix + ".hoodie/")]
    assert any(k.endswith(".replacecommit") for k in timeline)
