"""The S3 server the servers-marked tests use: loopback only, conditional writes honoured."""

from __future__ import annotations

from typing import Any

import pyarrow.fs as pafs
import pytest
from botocore.exceptions import ClientError

pytestmark = pytest.mark.servers


def test_the_server_listens_on_loopback_and_logs_each_request(s3_server: Any) -> None:
    assert s3_server.endpoint.startswith("http://127.0.0.1:")
    s3_server.create_bucket("support-check")
    before = s3_server.request_count()
    filesystem = pafs.S3FileSystem(**s3_server.storage_options())
    assert filesystem.get_file_info("support-check/none").type == pafs.FileType.NotFound
    assert s3_server.request_count() > before


def test_conditional_writes_are_honoured(s3_server: Any) -> None:
    s3_server.create_bucket("support-conditional")
    client = s3_server.client()
    first = client.put_object(Bucket="support-conditional", Key="lock", Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as refused:
        client.put_object(Bucket="support-conditional", Key="lock", Body=b"2", IfNoneMatch="*")
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    client.put_object(Bucket="support-conditional", Key="lock", Body=b"3", IfMatch=first["ETag"])
    with pytest.raises(ClientError):
        client.put_object(Bucket="support-conditional", Key="lock", Body=b"4", IfMatch=first["ETag"])
