"""SeaweedFS, the second S3 server of the servers-marked tests: loopback only, the credentials it
was given, S3 conditional writes honoured (what a storage-based lock relies on), and stopped
with its whole process group."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs
import pytest
from botocore.exceptions import ClientError

from tests.support.seaweedfs_server import seaweedfs_s3_server

pytestmark = pytest.mark.servers

LISTEN = "0A"


def listening_addresses(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket process ``pid`` listens on, from /proc."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd)
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and inode in inodes:
                address, port = local.split(":")
                found.add((_address(address), int(port, 16)))
    return found


def _address(hex_address: str) -> str:
    if len(hex_address) == 8:  # IPv4, little-endian
        return ".".join(str(int(hex_address[i : i + 2], 16)) for i in (6, 4, 2, 0))
    return "ipv6:" + hex_address


def test_it_listens_only_on_loopback_on_the_ports_it_was_given(seaweedfs_server: Any) -> None:
    listening = listening_addresses(seaweedfs_server.pid)
    assert listening, "weed mini listens on nothing"
    assert {address for address, _ in listening} == {"127.0.0.1"}
    assert {port for _, port in listening} <= set(seaweedfs_server.ports.all())
    assert seaweedfs_server.ports.s3 in {port for _, port in listening}


def test_it_serves_s3_with_the_test_credentials(seaweedfs_server: Any) -> None:
    seaweedfs_server.create_bucket("weed-support")
    filesystem = pafs.S3FileSystem(**seaweedfs_server.storage_options())
    with filesystem.open_output_stream("weed-support/lake/t/a.txt") as out:
        out.write(b"hello")
    with filesystem.open_input_stream("weed-support/lake/t/a.txt") as source:
        assert source.read() == b"hello"
    assert seaweedfs_server.keys("weed-support") == ["lake/t/a.txt"]
    wrong = {**seaweedfs_server.storage_options(), "secret_key": "not-the-secret"}
    with pytest.raises(OSError):
        pafs.S3FileSystem(**wrong).get_file_info("weed-support/lake/t/a.txt")


def test_conditional_writes_are_honoured(seaweedfs_server: Any) -> None:
    seaweedfs_server.create_bucket("weed-conditional")
    client = seaweedfs_server.client()
    first = client.put_object(Bucket="weed-conditional", Key="lock", Body=b"1", IfNoneMatch="*")
    with pytest.raises(ClientError) as exists:
        client.put_object(Bucket="weed-conditional", Key="lock", Body=b"2", IfNoneMatch="*")
    assert exists.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    client.put_object(Bucket="weed-conditional", Key="lock", Body=b"3", IfMatch=first["ETag"])
    with pytest.raises(ClientError) as stale:
        client.put_object(Bucket="weed-conditional", Key="lock", Body=b"4", IfMatch=first["ETag"])
    assert stale.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    body = client.get_object(Bucket="weed-conditional", Key="lock")["Body"].read()
    assert body == b"3"


def test_it_stops_with_its_process_group_when_the_block_fails(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="the test failed"), seaweedfs_s3_server(tmp_path) as server:
        pid = server.pid
        raise RuntimeError("the test failed")
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


def test_many_buckets_each_take_writes_whatever_the_free_disk(seaweedfs_server: Any) -> None:
    """Every bucket takes a volume; the slots no longer depend on free disk, so the suite's
    buckets (and more) all take writes instead of a 500 once the slots run out."""
    client = seaweedfs_server.client()
    buckets = [f"weed-slots-{index}" for index in range(24)]
    try:
        for bucket in buckets:
            seaweedfs_server.create_bucket(bucket)
            client.put_object(Bucket=bucket, Key="probe", Body=b"x")
        assert all(client.get_object(Bucket=b, Key="probe")["Body"].read() == b"x" for b in buckets)
    finally:
        for bucket in buckets:
            client.delete_object(Bucket=bucket, Key="probe")
            client.delete_bucket(Bucket=bucket)
