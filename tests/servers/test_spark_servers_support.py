"""The server support of the Spark servers tests, on small stand-ins (no JVM): a server that
exits before it is ready fails with the tail of its log, and a block that fails stops the
server's whole process group."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.spark_servers import ServerStartError, free_port, port_open, started, wait_until

pytestmark = pytest.mark.servers


def test_a_server_that_exits_before_it_is_ready_shows_its_log(tmp_path: Path) -> None:
    command = ["bash", "-c", "echo 'Exception in thread main: no room'; exit 3"]
    log = tmp_path / "server.log"
    with (
        started("a server", command, dict(os.environ), log) as server,
        pytest.raises(ServerStartError) as failed,
    ):
        wait_until(server, port_open(free_port()), "listening")
    assert "a server exited with code 3 before listening" in str(failed.value)
    assert "Exception in thread main: no room" in str(failed.value)


def gone(pid: int) -> bool:
    """No such process, or only its zombie left."""
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_failing_block_stops_the_whole_process_group(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    command = ["bash", "-c", f"sleep 300 & echo $! > {child}; wait"]
    with pytest.raises(RuntimeError, match="the test failed"):  # noqa: SIM117 - the block raises
        with started("a server", command, dict(os.environ), tmp_path / "server.log") as server:
            wait_until(
                server, lambda: child.exists() and child.read_text().strip() != "", "its child started"
            )
            raise RuntimeError("the test failed")
    assert server.process.poll() is not None
    assert gone(int(child.read_text()))
