"""``maintainer discover`` on real S3 servers (moto's and SeaweedFS): nested tables under a
prefix, non-Hudi objects, a prefix inside a table refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.cli import main
from tests.support.fixtures import FixtureTable
from tests.support.s3_server import S3Endpoint

pytestmark = [pytest.mark.servers, pytest.mark.fixtures]

SERVERS = ["s3_server", "seaweedfs_server"]
COW = "sample_table_cow_v6_simplekeygen_nonhivestyle"
MOR = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"


def upload(server: S3Endpoint, bucket: str, table: Path, prefix: str) -> None:
    client = server.client()
    for path in table.rglob("*"):
        if path.is_file():
            client.put_object(
                Bucket=bucket, Key=f"{prefix}/{path.relative_to(table).as_posix()}", Body=path.read_bytes()
            )


@pytest.mark.parametrize("server_fixture", SERVERS)
def test_discover_on_s3(
    server_fixture: str,
    request: pytest.FixtureRequest,
    fixture_table: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    server: S3Endpoint = request.getfixturevalue(server_fixture)
    bucket = f"discover-{server_fixture.split('_', maxsplit=1)[0]}"
    uri = server.create_bucket(bucket)
    upload(server, bucket, fixture_table(COW).path, "lake/sales/orders")
    upload(server, bucket, fixture_table(MOR).path, "lake/sales/eu/returns")
    server.client().put_object(Bucket=bucket, Key="lake/raw/csv/a.csv", Body=b"x\n")
    options = [f"--storage-option={key}={value}" for key, value in server.storage_options().items()]
    try:
        check(uri, options, fixture_table, capsys)
    finally:  # SeaweedFS gives each bucket its own volumes, and a small server has few: give them back
        drop_bucket(server, bucket)


def drop_bucket(server: S3Endpoint, bucket: str) -> None:
    client = server.client()
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            client.delete_object(Bucket=bucket, Key=item["Key"])
    client.delete_bucket(Bucket=bucket)


def check(
    uri: str,
    options: list[str],
    fixture_table: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["discover", f"{uri}/lake", *options, "--format", "json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[: out.rindex("}") + 1])
    assert [(t["relative"], t["table_type"]) for t in data["tables"]] == [
        ("sales/eu/returns", "MERGE_ON_READ"),
        ("sales/orders", "COPY_ON_WRITE"),
    ]
    assert data["tables"][1]["path"] == f"{uri}/lake/sales/orders"
    partition = next(p.name for p in fixture_table(COW).path.iterdir() if p.is_dir() and p.name != ".hoodie")
    assert main(["discover", f"{uri}/lake/sales/orders/{partition}", *options]) == 1
    assert f"is inside the Hudi table at {uri}/lake/sales/orders" in capsys.readouterr().err
