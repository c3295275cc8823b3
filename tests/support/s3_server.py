"""A real S3 server on 127.0.0.1 for the ``servers``-marked tests: moto's standalone server,
started as a subprocess on a free port and stopped by the test that started it.

moto logs one line per HTTP request it serves, so :meth:`S3Server.requests` counts what a
command sent (method and path), which the request-count tests and benches assert on.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ACCESS_KEY = "maintainer-test"
SECRET_KEY = "maintainer-test-secret"
REGION = "us-east-1"
_ANSI_STYLE = re.compile(r"\x1b\[[0-9;]*m")
_REQUEST_LINE = re.compile(r'"(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/[\d.]+" (\d{3})')


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class S3Request:
    method: str
    path: str
    status: int


@dataclass(frozen=True)
class S3Endpoint:
    """A running S3-compatible server: its endpoint and credentials, as each client names them."""

    endpoint: str
    """``http://127.0.0.1:<port>``"""

    @property
    def host_port(self) -> str:
        return self.endpoint.removeprefix("http://")

    def storage_options(self) -> dict[str, Any]:
        """pyarrow ``S3FileSystem`` options (what a profile's ``storage_options`` holds)."""
        return {
            "endpoint_override": self.host_port,
            "scheme": "http",
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            "region": REGION,
        }

    def hudi_options(self) -> dict[str, str]:
        """The same server for the ``hudi`` reader (hudi-rs / object_store option names), e.g.
        ``HudiTableBuilder.from_base_uri(uri).with_storage_options(options).build()``."""
        return {
            "aws_endpoint_url": self.endpoint,
            "aws_access_key_id": ACCESS_KEY,
            "aws_secret_access_key": SECRET_KEY,
            "aws_region": REGION,
            "aws_allow_http": "true",
        }

    def client(self) -> Any:
        """A boto3 S3 client for test setup and checks."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )

    def create_bucket(self, name: str) -> str:
        """Create bucket ``name`` (lowercase, 3+ characters); returns ``s3://name``."""
        self.client().create_bucket(Bucket=name)
        return f"s3://{name}"

    def keys(self, bucket: str) -> list[str]:
        """Every object key in ``bucket``, sorted."""
        paginator = self.client().get_paginator("list_objects_v2")
        pages = paginator.paginate(Bucket=bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


@dataclass(frozen=True)
class S3Server(S3Endpoint):
    """moto's S3 server: an :class:`S3Endpoint` with the log of every request it served."""

    log_path: Path

    def requests(self) -> list[S3Request]:
        """Every request the server has served so far, in order."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        text = _ANSI_STYLE.sub("", text)  # the server colours some lines (DELETE, errors)
        return [S3Request(match[1], match[2], int(match[3])) for match in _REQUEST_LINE.finditer(text)]

    def request_count(self) -> int:
        return len(self.requests())


def moto_server_command() -> list[str]:
    executable = Path(sys.executable).with_name("moto_server")
    if executable.exists():
        return [str(executable)]
    found = shutil.which("moto_server")
    if found is None:
        raise RuntimeError("moto_server not found: install the dev extra (pip install -e '.[dev]')")
    return [found]


def wait_until_listening(
    port: int, process: subprocess.Popen[bytes], log_path: Path, name: str = "moto_server"
) -> None:
    """Return once 127.0.0.1:``port`` accepts connections; raise with the log's tail if the
    server exits first or 30 s pass."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not listen on 127.0.0.1:{port} within 30 s")


@contextmanager
def moto_s3_server(workdir: Path) -> Iterator[S3Server]:
    """moto's S3 server on 127.0.0.1 (a free port) for the block; stopped afterwards."""
    port = free_port()
    log_path = workdir / f"moto-{port}.log"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*moto_server_command(), "-H", "127.0.0.1", "-p", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        wait_until_listening(port, process, log_path)
        yield S3Server(f"http://127.0.0.1:{port}", log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
