"""Real Spark servers on 127.0.0.1 for the ``servers``-marked tests: a standalone master with one
worker, and a Spark Connect server, started from pyspark's own scripts (``bin/spark-class``,
``bin/spark-submit``) as process groups, with their logs in files.

Every listener is on loopback: ``SPARK_LOCAL_IP`` (the RPC endpoints and the web UIs bind to it),
explicit ``--host``/``--port``/``--webui-port`` values, ``spark.driver.bindAddress`` for the
Connect server's driver. Startup waits for the port (and, for the master, a registered worker in
the master's ``/json``); a server that does not come up fails with the tail of its log. Whatever
was started is stopped (its whole process group) when the block ends, also on failure.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
STARTUP_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 20.0
LOG_TAIL_CHARS = 4000
SPARK_HOME_ENV = "MAINTAINER_TEST_SPARK_HOME"
"""A Spark home to start the servers from instead of this interpreter's pyspark (e.g. another
venv's ``site-packages/pyspark``, to put a client and a server of different versions together)."""
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


class ServerStartError(RuntimeError):
    """A server did not come up; the message ends with the tail of its log."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def spark_home() -> Path:
    """Where ``bin/spark-class`` and the jars are: $MAINTAINER_TEST_SPARK_HOME or pyspark's."""
    if os.environ.get(SPARK_HOME_ENV):
        return Path(os.environ[SPARK_HOME_ENV])
    import pyspark

    return Path(pyspark.__file__).parent


def spark_version(home: Path) -> str:
    """The Spark version of a Spark home (from its spark-core jar's name)."""
    jar = next((home / "jars").glob("spark-core_*.jar"))
    return jar.stem.split("-")[-1]


def connect_jar(home: Path) -> Path | None:
    return next((home / "jars").glob("spark-connect_*.jar"), None)


def server_environment(home: Path, work: Path) -> dict[str, str]:
    """The environment of every server process: loopback only, logs and scratch under ``work``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SPARK_", "PYSPARK_"))}
    env.update(
        SPARK_HOME=str(home),
        SPARK_LOCAL_IP=LOOPBACK,
        SPARK_LOCAL_HOSTNAME=LOOPBACK,
        SPARK_PUBLIC_DNS=LOOPBACK,
        SPARK_LOG_DIR=str(work / "logs"),
        SPARK_PID_DIR=str(work),
        SPARK_WORKER_DIR=str(work / "worker"),
        SPARK_LOCAL_DIRS=str(work / "local"),
        SPARK_CONF_DIR=str(work / "conf"),
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        # the master's REST submission server would listen on a fixed port (6066): not needed
        SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
    )
    for folder in ("logs", "worker", "local", "conf"):
        (work / folder).mkdir(parents=True, exist_ok=True)
    return env


@dataclass(frozen=True)
class ServerProcess:
    """One started server: its process (group leader) and log file."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return text[-LOG_TAIL_CHARS:]

    def failure(self, why: str) -> ServerStartError:
        return ServerStartError(f"{self.name} {why}; log {self.log_path}:\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the whole process group (the JVM and anything it started: executors, Python
        workers): SIGTERM, then SIGKILL after a while."""
        if self.process.poll() is None:
            _signal_group(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                _signal_group(self.process.pid, signal.SIGKILL)
                self.process.wait()
        _signal_group(self.process.pid, signal.SIGKILL)  # stragglers of the group, if any


def _signal_group(group: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)


@contextmanager
def started(name: str, command: list[str], env: dict[str, str], log_path: Path) -> Iterator[ServerProcess]:
    """Run ``command`` in its own process group for the block, its output to ``log_path``."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    server = ServerProcess(name, process, log_path)
    try:
        yield server
    finally:
        server.stop()


def wait_until(server: ServerProcess, ready: Callable[[], bool], what: str) -> None:
    """Poll ``ready`` until it holds; fail with the log's tail if the server exits or time is up."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise server.failure(f"exited with code {server.process.returncode} before {what}")
        if ready():
            return
        time.sleep(0.25)
    raise server.failure(f"did not get to {what} within {STARTUP_TIMEOUT_S:.0f} s")


def port_open(port: int) -> Callable[[], bool]:
    def probe() -> bool:
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return True
        except OSError:
            return False

    return probe


def read_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@dataclass(frozen=True)
class StandaloneCluster:
    """A standalone master and one worker on 127.0.0.1."""

    master_url: str
    """``spark://127.0.0.1:<port>``"""
    webui_url: str
    """``http://127.0.0.1:<port>`` of the master's web UI (``/json`` for its state)."""
    version: str
    work: Path
    master: ServerProcess
    worker: ServerProcess

    def state(self) -> dict[str, Any]:
        """The master's state: workers, active and completed applications."""
        state: dict[str, Any] = read_json(f"{self.webui_url}/json")
        return state

    def completed_apps(self) -> list[dict[str, Any]]:
        return list(self.state().get("completedapps", []))

    def logs(self) -> str:
        return f"master:\n{self.master.log_tail()}\nworker:\n{self.worker.log_tail()}"


def _alive_workers(webui_url: str) -> Callable[[], bool]:
    def probe() -> bool:
        try:
            state = read_json(f"{webui_url}/json")
        except OSError:
            return False
        return any(worker.get("state") == "ALIVE" for worker in state.get("workers", []))

    return probe


@contextmanager
def standalone_cluster(work: Path, cores: int = 1, memory: str = "1g") -> Iterator[StandaloneCluster]:
    """A master and one worker (``cores`` cores, ``memory``) started from ``spark_home()``."""
    home = spark_home()
    env = server_environment(home, work)
    env["SPARK_DAEMON_MEMORY"] = "256m"  # the master's and the worker's heap (1g by default)
    spark_class = str(home / "bin" / "spark-class")
    port, webui, worker_port, worker_webui = free_port(), free_port(), free_port(), free_port()
    master_url, webui_url = f"spark://{LOOPBACK}:{port}", f"http://{LOOPBACK}:{webui}"
    with ExitStack() as stack:
        master = stack.enter_context(started(
            "the Spark master",
            [spark_class, "org.apache.spark.deploy.master.Master",
             "--host", LOOPBACK, "--port", str(port), "--webui-port", str(webui)],
            env, work / "master.log",
        ))  # fmt: skip
        wait_until(master, port_open(port), f"listening on {LOOPBACK}:{port}")
        wait_until(master, port_open(webui), f"serving its web UI on {LOOPBACK}:{webui}")
        worker = stack.enter_context(started(
            "the Spark worker",
            [spark_class, "org.apache.spark.deploy.worker.Worker", master_url,
             "--host", LOOPBACK, "--port", str(worker_port), "--webui-port", str(worker_webui),
             "--cores", str(cores), "--memory", memory, "--work-dir", str(work / "worker")],
            env, work / "worker.log",
        ))  # fmt: skip
        wait_until(worker, _alive_workers(webui_url), f"registering with the master at {master_url}")
        yield StandaloneCluster(master_url, webui_url, spark_version(home), work, master, worker)


@dataclass(frozen=True)
class ConnectServer:
    """A Spark Connect server (a local[2] driver inside) on 127.0.0.1."""

    remote: str
    """``sc://127.0.0.1:<port>``"""
    port: int
    version: str
    server: ServerProcess

    def logs(self) -> str:
        return self.server.log_tail()

    def logs_text(self) -> str:
        """The server's whole log so far."""
        return self.server.log_path.read_text(errors="replace")


@contextmanager
def connect_server(work: Path, python: str = sys.executable) -> Iterator[ConnectServer]:
    """A Spark Connect server started from ``spark_home()`` whose Python workers run ``python``
    (so they import maintainer); fails at once where that Spark ships no Connect server jar."""
    home = spark_home()
    if connect_jar(home) is None:
        raise ServerStartError(f"Spark {spark_version(home)} at {home} ships no Spark Connect server jar")
    env = server_environment(home, work)
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = python
    port = free_port()
    conf = {
        "spark.connect.grpc.binding.address": LOOPBACK,
        "spark.connect.grpc.binding.port": str(port),
        "spark.ui.enabled": "false",
        "spark.driver.host": LOOPBACK,
        "spark.driver.bindAddress": LOOPBACK,
        "spark.pyspark.python": python,
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
    }
    command = [str(home / "bin" / "spark-submit"), "--class", CONNECT_SERVER_CLASS, "--name",
               "Spark Connect server", "--master", "local[2]", "--driver-memory", "512m"]  # fmt: skip
    for key, value in conf.items():
        command += ["--conf", f"{key}={value}"]
    command.append("spark-internal")
    with started("the Spark Connect server", command, env, work / "connect.log") as server:
        wait_until(server, port_open(port), f"listening on {LOOPBACK}:{port}")
        yield ConnectServer(f"sc://{LOOPBACK}:{port}", port, spark_version(home), server)


def listeners(pids: set[int]) -> list[str]:
    """The TCP listen addresses (``host:port``) of the given processes and their descendants,
    from ``ss -ltnp``."""
    family = _descendants(pids)
    shown = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in shown.splitlines():
        fields = line.split()
        owners = {int(part.split("=")[1]) for part in line.split(",") if part.startswith("pid=")}
        if owners & family:
            found.append(fields[3])
    return found


def _descendants(pids: set[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), list(pids)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


# --- a maintainer project on these servers, driven through the CLI in its own process ---------

SERVICES = """\
    rollback: {min_age: 0s}
    compaction: {trigger: {max_delta_commits: 1}}
    clean: {enabled: false}
    archive: {enabled: false}"""
"""The table's services: roll back the failed write, compact every file group with logs."""


def cluster_profile(name: str, master: str) -> str:
    """profiles.yml for a standalone cluster (what the README's "Running on a cluster" shows)."""
    return f"""\
{name}:
  target: cluster
  outputs:
    cluster:
      spark:
        master: {master}
        conf:
          spark.pyspark.python: {sys.executable}   # the executors' Python, with maintainer
          spark.driver.host: {LOOPBACK}            # where the executors reach the driver
          spark.driver.bindAddress: {LOOPBACK}
          spark.driver.memory: 512m
          spark.executor.memory: 512m
          spark.executor.cores: 1
          spark.cores.max: 1
      threads: 2
      engine: spark
"""


def connect_profile(name: str, remote: str) -> str:
    """profiles.yml for a Spark Connect server."""
    return f"""\
{name}:
  target: connect
  outputs:
    connect:
      spark:
        remote: {remote}
        conf:
          spark.sql.shuffle.partitions: 2
      threads: 2
      engine: spark
"""


@dataclass(frozen=True)
class CliRun:
    code: int
    stdout: str
    stderr: str


def run_maintainer(args: list[str], home: Path) -> CliRun:
    """``maintainer ARGS`` in a process of its own, as a user runs it: a private HOME, nothing of
    the test process's MAINTAINER_*, SPARK_* or PYSPARK_* settings (and no SparkSession of it)."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("MAINTAINER_", "PYSPARK_", "SPARK_"))}  # fmt: skip
    env["HOME"] = str(home)
    done = subprocess.run([str(Path(sys.executable).with_name("maintainer")), *args],
                          capture_output=True, text=True, env=env, check=False, timeout=600)  # fmt: skip
    return CliRun(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class CliProject:
    """A project made by ``maintainer init`` around one generated table ``t``."""

    root: Path
    table: Path
    home: Path

    def cli(self, *args: str) -> CliRun:
        return run_maintainer([*args, "--project-dir", str(self.root)], self.home)

    def with_profile(self, text: str) -> CliProject:
        (self.root / "profiles.yml").write_text(text)
        return self

    @property
    def profile_name(self) -> str:
        import yaml

        project = yaml.safe_load((self.root / "maintainer_project.yml").read_text())
        return str(project["profile"])

    def results(self) -> dict[str, dict[str, Any]]:
        data = json.loads((self.root / "target" / "run_results.json").read_text())
        return {node["node"]: node for node in data["results"]}

    def has_logs(self) -> bool:
        from maintainer.hudi.table.state import open_table

        return any(file_slice.log_files for file_slice in open_table(str(self.table)).view.latest_slices())

    def data_rows(self) -> list[dict[str, Any]]:
        """The table's rows as ``hudi`` reads them, without Hudi's meta columns."""
        from maintainer.datagen.workload import DATA_SCHEMA
        from tests.support import oracle

        read = oracle.snapshot_rows(self.table)
        meta = [column for column in (read[0] if read else {}) if column not in DATA_SCHEMA.names]
        return oracle.snapshot_rows(self.table, drop=meta)

    def plan_apply_and_check(self, server_logs: Callable[[], str]) -> None:
        """Plan and apply through the CLI; the failed write is rolled back, the logs compacted,
        and ``hudi`` reads exactly the rows of the last completed commit."""
        from tests.support import oracle

        assert self.has_logs()
        planned = self.cli("plan")
        assert planned.code == 0, planned
        applied = self.cli("apply")
        assert applied.code == 0, (applied, server_logs())
        results = self.results()
        assert results["t.rollback"]["status"] == results["t.compaction"]["status"] == "success", results
        assert results["t.compaction"]["adapter_response"]["compactions"], results["t.compaction"]
        assert not self.has_logs()
        assert self.data_rows() == oracle.rows_of(self.expected_rows())

    def expected_rows(self) -> list[dict[str, Any]]:
        """The rows of the last completed commit, as datagen wrote them."""
        lines = Path(f"{self.table}.expected.jsonl").read_text().splitlines()
        rows: list[dict[str, Any]] = json.loads(lines[-1])["rows"]
        return rows


def generated_project(work: Path) -> CliProject:
    """``maintainer datagen`` a MOR table (v8, 2 partitions, 4 commits, the last one failed:
    logs to compact and a write to roll back), then ``maintainer init`` a project for it."""
    table, root, home = work / "lake" / "t", work / "project", work / "home"
    home.mkdir(parents=True)
    for args in (
        ["datagen", str(table), "--table-type", "mor", "--table-version", "8", "--commits", "4",
         "--partitions", "2", "--file-groups", "1", "--rows-per-commit", "20", "--failed-write",
         "--engine", "local"],
        ["init", str(root)],
    ):  # fmt: skip
        done = run_maintainer(args, home)
        assert done.code == 0, (args, done)
    manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n{SERVICES}\n"
    (root / "tables" / "example.yml").write_text(manifest)
    return CliProject(root, table, home)
