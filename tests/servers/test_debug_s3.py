"""``maintainer debug`` on a table in S3: every storage check passes with the target's storage
options, the write probe stays inside the table's ``.hoodie/`` and is gone afterwards, and wrong
credentials fail the storage check with the server's answer."""

from __future__ import annotations

from typing import Any

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.diagnostics.checks import CheckStatus
from maintainer.diagnostics.storage_checks import check_table

pytestmark = pytest.mark.servers


def keys(server: Any, bucket: str) -> set[str]:
    listed = server.client().list_objects_v2(Bucket=bucket)
    return {item["Key"] for item in listed.get("Contents", [])}


def test_the_storage_checks_on_s3_write_only_inside_the_table(s3_server: Any) -> None:
    path = s3_server.create_bucket("debug-checks") + "/lake/t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=2, rows_per_commit=5, seed=2)
    generate(path, DatagenSpec("t", "cow", 8, workload), storage_options=s3_server.storage_options())
    before = keys(s3_server, "debug-checks")
    mark = len(s3_server.requests())
    results = check_table("t", path, s3_server.storage_options())
    assert [result.status for result in results] == [CheckStatus.PASSED] * 4, results
    writes = [r for r in s3_server.requests()[mark:] if r.method in ("PUT", "POST", "DELETE")]
    assert writes and all(
        r.path.startswith("/debug-checks/lake/t/.hoodie/.maintainer-debug-") for r in writes
    )
    assert keys(s3_server, "debug-checks") == before


def test_wrong_credentials_fail_with_the_servers_answer(s3_server: Any) -> None:
    path = s3_server.create_bucket("debug-denied") + "/lake/t"
    options = {**s3_server.storage_options(), "endpoint_override": "127.0.0.1:1"}
    results = check_table("t", path, options)
    assert results[0].status is CheckStatus.FAILED
    assert results[0].name == "storage"
