"""maintainer on a standalone Spark cluster (a master and one worker on 127.0.0.1), through the
CLI as a user runs it: the profile of the README's "Running on a cluster", plan and apply of a
rollback and a compaction with ``engine: spark``; hudi then reads the last completed commit's
rows, and the master shows the application whose executor ran the work. A master nobody
listens on fails at once, saying so."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.spark_servers import (
    LOOPBACK,
    StandaloneCluster,
    cluster_profile,
    free_port,
    generated_project,
    listeners,
)

pytestmark = [pytest.mark.servers, pytest.mark.spark]


def finished_app(cluster: StandaloneCluster, name: str) -> dict[str, Any]:
    """The master's record of the finished application ``name`` (the driver process has exited;
    the master may take a moment to notice)."""
    for _ in range(100):
        apps = [app for app in cluster.completed_apps() if app["name"] == name]
        if apps:
            return apps[-1]
        time.sleep(0.2)
    raise AssertionError(f"no completed application {name!r} on the master: {cluster.state()}")


def test_every_listener_is_on_loopback(spark_cluster: StandaloneCluster) -> None:
    found = listeners({spark_cluster.master.process.pid, spark_cluster.worker.process.pid})
    assert len(found) >= 4, found  # master RPC and UI, worker RPC and UI
    assert all(address.rsplit(":", 1)[0] in (LOOPBACK, f"[::ffff:{LOOPBACK}]") for address in found), found


def test_plan_and_apply_run_on_the_cluster(spark_cluster: StandaloneCluster, tmp_path: Path) -> None:
    project = generated_project(tmp_path)
    project.with_profile(cluster_profile(project.profile_name, spark_cluster.master_url))
    project.plan_apply_and_check(spark_cluster.logs)
    app = finished_app(spark_cluster, "maintainer")
    assert (spark_cluster.work / "worker" / app["id"]).is_dir(), "the worker ran the app's executor"


def test_a_master_nobody_listens_on_is_named(tmp_path: Path) -> None:
    project = generated_project(tmp_path)
    dead = f"spark://{LOOPBACK}:{free_port()}"
    project.with_profile(cluster_profile(project.profile_name, dead))
    assert project.cli("plan").code == 0
    applied = project.cli("apply")
    assert applied.code == 1
    shown = applied.stdout + applied.stderr
    assert f"cannot reach the Spark master at {dead}" in shown, applied
    assert "connection refused" in shown and "is it running?" in shown
