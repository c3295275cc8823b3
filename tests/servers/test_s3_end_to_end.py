"""The whole story on real S3 servers (moto's and SeaweedFS): ``datagen`` a merge-on-read table
with logs to compact and a failed write into a bucket, ``init`` a project whose target has the
server's ``storage_options``, ``plan`` and ``apply`` (rollback, compaction, clean, archive), then
read the table back with ``hudi`` over S3: the rows of the last completed commit, keys and
values. Nothing is written outside the table's prefix, and every small file goes up in one PUT."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from maintainer.cli import main
from maintainer.datagen.workload import DATA_SCHEMA
from tests.support import oracle
from tests.support.s3_server import S3Endpoint, S3Request, S3Server

pytestmark = pytest.mark.servers

SERVICES = """\
    rollback: {min_age: 0s}
    compaction: {trigger: {max_delta_commits: 1}}
    clean: {policy: keep_latest_file_versions, file_versions_retained: 1, commits_retained: 1}
    archive: {keep_min_commits: 2, keep_max_commits: 3}"""
"""Roll back the failed write, compact every file group with logs, clean what the compaction
superseded, archive down to a short timeline."""
OUTSIDE = ("outside/keep.txt", "lake/t-sibling/keep.txt", "lake/keep.txt")
"""Objects beside and above the table: still there, unchanged, after every command."""


@dataclass(frozen=True)
class S3Project:
    root: Path
    table: str
    bucket: str
    server: S3Endpoint

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def nodes(self) -> dict[str, dict[str, Any]]:
        plan = json.loads((self.root / "target" / "plan" / "plan.json").read_text())
        return {f"{n['table']}.{n['service']}": n for t in plan["tables"] for n in t["nodes"]}

    def results(self) -> dict[str, dict[str, Any]]:
        data = json.loads((self.root / "target" / "run_results.json").read_text())
        return {node["node"]: node for node in data["results"]}

    def outside_objects(self) -> dict[str, bytes]:
        client = self.server.client()
        prefix = self.table.removeprefix(f"s3://{self.bucket}/") + "/"
        keys = [key for key in self.server.keys(self.bucket) if not key.startswith(prefix)]
        return {key: client.get_object(Bucket=self.bucket, Key=key)["Body"].read() for key in keys}


def storage_option_args(server: S3Endpoint) -> list[str]:
    return [
        arg
        for key, value in server.storage_options().items()
        for arg in ("--storage-option", f"{key}={value}")
    ]


def datagen(server: S3Endpoint, table: str, version: int) -> None:
    args = ["datagen", table, "--table-type", "mor", "--table-version", str(version), "--commits", "5",
            "--partitions", "2", "--file-groups", "1", "--rows-per-commit", "20", "--failed-write",
            "--engine", "local", *storage_option_args(server)]  # fmt: skip
    if version == 8:
        args.append("--metadata-table")
    assert main(args) == 0


def with_storage_options(root: Path, server: S3Endpoint) -> None:
    """The dev target runs in this process (``engine: local``) on the server."""
    options = json.dumps({key: str(value) for key, value in server.storage_options().items()})
    profiles = root / "profiles.yml"
    target = f"      engine: local\n      storage_options: {options}"
    profiles.write_text(profiles.read_text().replace("      engine: auto", target))


def bucket_with_neighbours(server: S3Endpoint, bucket: str) -> str:
    """A new bucket holding objects beside and above the table; returns the table's URI."""
    table = server.create_bucket(bucket) + "/lake/t"
    client = server.client()
    for key in OUTSIDE:
        client.put_object(Bucket=bucket, Key=key, Body=key.encode())
    return table


def s3_project(
    server: S3Endpoint, table: str, version: int, work: Path, monkeypatch: pytest.MonkeyPatch
) -> S3Project:
    """datagen the table (expected rows into ``work``), init a project for it in ``work``."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(work / "home"))
    monkeypatch.chdir(work)
    datagen(server, table, version)
    root = work / "project"
    assert main(["init", str(root)]) == 0
    with_storage_options(root, server)
    manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n{SERVICES}\n"
    (root / "tables" / "example.yml").write_text(manifest)
    bucket = table.removeprefix("s3://").split("/")[0]
    return S3Project(root, table, bucket, server)


def s3_rows(table: str, server: S3Endpoint) -> list[dict[str, Any]]:
    """The data columns hudi reads over S3 (latest snapshot)."""
    import hudi

    try:
        built = hudi.HudiTableBuilder.from_base_uri(table).with_storage_options(server.hudi_options()).build()
        batches = built.read()
    except BaseException as exc:  # hudi-rs panics are BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise AssertionError(f"hudi could not read {table}: {exc!r}") from None
    read = pa.Table.from_batches(batches) if batches else pa.table({})
    return oracle.rows(read.select([c for c in read.column_names if c in DATA_SCHEMA.names]))


def expected_rows(work: Path) -> list[dict[str, Any]]:
    """The rows of the last completed commit, from the file datagen wrote in the current
    directory (a table on S3 gets no expected-rows object beside it)."""
    lines = (work / "t.expected.jsonl").read_text().splitlines()
    return oracle.rows_of(json.loads(lines[-1])["rows"])


def writes_outside(sent: list[S3Request], bucket: str, prefix: str) -> list[S3Request]:
    """PUT, POST and DELETE requests on a path outside the table. A batch delete (``POST
    /bucket?delete``) names its keys in the body, which the log lacks: those are checked by the
    objects outside the table staying in place."""
    inside = f"/{bucket}/{prefix}/"
    batch_delete = f"/{bucket}?delete"
    return [
        r
        for r in sent
        if r.method in ("PUT", "POST", "DELETE") and not r.path.startswith(inside) and r.path != batch_delete
    ]


@pytest.mark.parametrize(
    ("server_fixture", "version"),
    [("s3_server", 8), ("s3_server", 6), ("seaweedfs_server", 8)],
    ids=["moto-v8", "moto-v6", "seaweedfs-v8"],
)
def test_plan_and_apply_on_an_s3_server(
    server_fixture: str,
    version: int,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server: S3Endpoint = request.getfixturevalue(server_fixture)
    bucket = f"e2e-{server_fixture.removesuffix('_server')}-v{version}"
    table = bucket_with_neighbours(server, bucket)
    mark = server.request_count() if isinstance(server, S3Server) else 0
    project = s3_project(server, table, version, tmp_path, monkeypatch)
    outside = project.outside_objects()
    assert sorted(outside) == sorted(OUTSIDE)
    expected = expected_rows(tmp_path)
    assert s3_rows(project.table, server) == expected

    assert project.cli("plan") == 0
    nodes = project.nodes()
    for service in ("rollback", "compaction", "clean"):
        assert nodes[f"t.{service}"]["status"] == "changes", nodes[f"t.{service}"]
    assert project.cli("apply") == 0, project.results()

    results = project.results()
    assert {node: result["status"] for node, result in results.items() if result["status"] != "success"} == {}
    assert results["t.compaction"]["adapter_response"]["compactions"], results["t.compaction"]
    assert s3_rows(project.table, server) == expected
    assert project.outside_objects() == outside
    if isinstance(server, S3Server):
        sent = server.requests()[mark:]
        assert [(r.method, r.path) for r in writes_outside(sent, bucket, "lake/t")] == []
        assert [r for r in sent if "uploads" in r.path or "partNumber=" in r.path] == [], "a multipart upload"


def properties_reads(sent: list[S3Request], bucket: str, table_prefix: str) -> int:
    path = f"/{bucket}/{table_prefix}/.hoodie/hoodie.properties"
    return sum(1 for r in sent if r.method == "GET" and r.path == path)


def timeline_listings(sent: list[S3Request], bucket: str, timeline_prefix: str) -> int:
    """LISTs of the folder (its query ends with the prefix: the parameters are sorted)."""
    listed = f"prefix={timeline_prefix}/"
    return sum(
        1 for r in sent if r.method == "GET" and r.path.startswith(f"/{bucket}?") and r.path.endswith(listed)
    )


def test_plan_and_inspect_read_each_tables_properties_once(
    s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a table with a metadata table kept in sync: one GET of its ``hoodie.properties`` and
    one LIST of its timeline per command, and the same for the metadata table's."""
    table = bucket_with_neighbours(s3_server, "e2e-reads-once")
    project = s3_project(s3_server, table, 8, tmp_path, monkeypatch)
    for command in (["plan"], ["inspect", table]):
        mark = s3_server.request_count()
        assert project.cli(*command) == 0
        sent = s3_server.requests()[mark:]
        assert properties_reads(sent, project.bucket, "lake/t") == 1, command
        assert timeline_listings(sent, project.bucket, "lake/t/.hoodie/timeline") == 1, command
        if command == ["inspect", table]:  # planning's archive node reads it again (see the report)
            assert properties_reads(sent, project.bucket, "lake/t/.hoodie/metadata") == 1, command
            assert timeline_listings(sent, project.bucket, "lake/t/.hoodie/metadata/.hoodie/timeline") == 1
