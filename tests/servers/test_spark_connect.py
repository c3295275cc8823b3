"""maintainer on a Spark Connect server on 127.0.0.1, through the CLI as a user runs it: plan and
apply of a rollback and a compaction with ``engine: spark`` and ``remote: sc://...``; hudi then
reads the last completed commit's rows, and the server's log shows the tasks it ran. A server
nobody listens on fails at once, and a server of another Spark line than this client's pyspark
is refused with both versions (.ci/spark-compat runs a pyspark 3.5 client against a 4.x
server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.spark.session import minor_version, pyspark_version
from tests.support.spark_servers import (
    LOOPBACK,
    ConnectServer,
    connect_profile,
    free_port,
    generated_project,
    listeners,
)

pytestmark = [pytest.mark.servers, pytest.mark.spark]
FINISHED_TASK = "Finished task"
"""What the server's driver logs for each task its executors completed."""


def same_line(server: ConnectServer) -> bool:
    return minor_version(server.version) == minor_version(pyspark_version())


def test_every_listener_is_on_loopback(spark_connect: ConnectServer) -> None:
    found = listeners({spark_connect.server.process.pid})
    assert f"{LOOPBACK}:{spark_connect.port}" in {a.replace("[::ffff:", "").replace("]", "") for a in found}
    assert all(address.rsplit(":", 1)[0] in (LOOPBACK, f"[::ffff:{LOOPBACK}]") for address in found), found


def test_plan_and_apply_run_on_the_server(spark_connect: ConnectServer, tmp_path: Path) -> None:
    if not same_line(spark_connect):
        pytest.skip(f"the server runs Spark {spark_connect.version}, this client pyspark {pyspark_version()}")
    project = generated_project(tmp_path)
    project.with_profile(connect_profile(project.profile_name, spark_connect.remote))
    tasks_before = spark_connect.logs_text().count(FINISHED_TASK)
    project.plan_apply_and_check(spark_connect.logs)
    assert spark_connect.logs_text().count(FINISHED_TASK) > tasks_before, "the server ran the tasks"


def test_a_server_nobody_listens_on_is_named(tmp_path: Path) -> None:
    project = generated_project(tmp_path)
    dead = f"sc://{LOOPBACK}:{free_port()}"
    project.with_profile(connect_profile(project.profile_name, dead))
    assert project.cli("plan").code == 0
    applied = project.cli("apply")
    assert applied.code == 1
    shown = " ".join((applied.stdout + applied.stderr).split())
    address = dead.removeprefix("sc://")
    assert f"Spark cannot start here: Connect server: cannot reach {address} ({dead})" in shown, applied
    assert "connection refused" in shown and "nothing was applied" in shown


def test_a_server_of_another_spark_line_is_refused(spark_connect: ConnectServer, tmp_path: Path) -> None:
    if same_line(spark_connect):
        pytest.skip("the server runs this client's Spark line (.ci/spark-compat runs this test)")
    project = generated_project(tmp_path)
    project.with_profile(connect_profile(project.profile_name, spark_connect.remote))
    assert project.cli("plan").code == 0
    applied = project.cli("apply")
    assert applied.code == 1
    shown = " ".join((applied.stdout + applied.stderr).split())
    assert f"runs Spark {spark_connect.version}, this client has pyspark {pyspark_version()}" in shown
    major, minor = minor_version(spark_connect.version)
    assert f"pip install 'pyspark=={major}.{minor}.*'" in shown, applied
