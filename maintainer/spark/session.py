"""A SparkSession from a profile target: local, a cluster master, or Spark Connect."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from maintainer import __version__
from maintainer.errors import ApplyError
from maintainer.project.profiles import SparkSettings
from maintainer.spark.tasks import SparkRunner, executor_report

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_MASTER = "local[*]"
DEFAULT_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.showConsoleProgress": "false",
}
LOG_CONFIG = resources.files("maintainer") / "resources" / "log4j2.properties"
LOCAL_DRIVER = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
"""A local master's driver listens on loopback only (its executors are on this machine); a
cluster's driver address is the profile's to give (spark.driver.host, spark.driver.bindAddress)."""
PYTHON_CONF = {
    "spark.pyspark.python": "PYSPARK_PYTHON",
    "spark.pyspark.driver.python": "PYSPARK_DRIVER_PYTHON",
}
"""Profile settings of the Python that runs the executors (and the driver), and the environment
variables PySpark actually reads them from when it launches its workers."""
STOPPED_CONTEXT = "Cannot call methods on a stopped SparkContext"
"""What a call on the SparkContext says once the standalone client gave up on the master."""
CONNECT_DEFAULT_PORT = 15002
REACH_TIMEOUT_S = 10.0
"""How long to wait for a Spark Connect server's or a master's port to accept a connection
(the Connect client itself retries an unreachable server for about ten minutes)."""
CONNECT_HINT = (
    "install the Spark Connect client packages with `pip install 'maintainer[connect]'` (grpcio, "
    "grpcio-status, googleapis-common-protos, zstandard), matching the server's Spark version"
)


def _require_java_for_local(settings: SparkSettings) -> None:
    if settings.remote is None and shutil.which("java") is None:
        raise ApplyError(
            "no Java runtime found: Spark needs a JDK 17+ on this machine",
            hint="install one (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME, "
            "or point the profile target at a Spark Connect server with `remote:`",
        )


def _conf_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def session_conf(settings: SparkSettings) -> dict[str, str]:
    """The configuration the session is built with: maintainer's defaults under the profile's
    ``conf``. A Spark Connect session gets no ``spark.ui.*`` default: the server owns its static
    settings (setting them only earns a CANNOT_MODIFY_CONFIG warning per apply)."""
    defaults = dict(DEFAULT_CONF)
    if settings.remote:
        defaults = {k: v for k, v in defaults.items() if not k.startswith("spark.ui.")}
    elif (settings.master or LOCAL_MASTER).startswith("local"):
        defaults["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{LOG_CONFIG}"
        defaults.update(LOCAL_DRIVER)
    return {**defaults, **{k: _conf_text(v) for k, v in settings.conf.items()}}


def python_environment(settings: SparkSettings) -> tuple[dict[str, str], dict[str, str]]:
    """The PYSPARK_* variables to set before the session starts, as (set, set unless already
    set): the profile's ``spark.pyspark.python`` / ``spark.pyspark.driver.python`` (PySpark
    starts its workers with these variables, not with the conf); for a local master, this
    interpreter unless the environment names another."""
    given = {env: str(settings.conf[key]) for key, env in PYTHON_CONF.items() if key in settings.conf}
    defaults: dict[str, str] = {}
    if not settings.remote and (settings.master or LOCAL_MASTER).startswith("local"):
        defaults["PYSPARK_PYTHON"] = sys.executable
    return given, defaults


def start_error(settings: SparkSettings, exc: Exception) -> ApplyError:
    where = settings.remote or settings.master or LOCAL_MASTER
    text = str(exc)
    if settings.remote and (
        "PACKAGE_NOT_INSTALLED" in text or ("grpc" in text.lower() and "install" in text)
    ):
        return ApplyError(
            f"cannot start Spark Connect ({where}): a client package is missing: {text}", hint=CONNECT_HINT
        )
    if master_addresses(where) and STOPPED_CONTEXT in text:
        return master_gave_up_error(where, pyspark_version())
    return ApplyError(
        f"cannot start Spark ({where}): {exc}", hint="check the profile target's spark settings"
    )


Address = tuple[str, int]


def connect_address(remote: str) -> Address:
    """Host and port of a Spark Connect URL ``sc://host[:port][/;param=value...]`` (Spark
    Connect's default port is 15002)."""
    parsed = urlparse(remote.split(";", 1)[0])
    return parsed.hostname or "localhost", parsed.port or CONNECT_DEFAULT_PORT


def master_addresses(master: str) -> list[Address]:
    """The masters of a standalone ``spark://host:port[,host:port...]`` URL (none for other
    masters: local, yarn, k8s, which Spark itself reaches)."""
    if not master.startswith("spark://"):
        return []
    found = []
    for part in master.removeprefix("spark://").split(","):
        host, _, port = part.rpartition(":")
        found.append((host or part, int(port) if port.isdigit() else 7077))
    return found


def reach(address: Address, timeout: float = REACH_TIMEOUT_S) -> str | None:
    """Why ``address`` accepts no TCP connection (``connection refused``, ``timed out``, ...),
    or None when it does."""
    try:
        with socket.create_connection(address, timeout=timeout):
            return None
    except socket.gaierror as exc:
        return f"unknown host {address[0]} ({exc.strerror or exc})"
    except TimeoutError:
        return f"no answer within {timeout:.0f} s"
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()


def unreachable_connect_error(remote: str, reason: str) -> ApplyError:
    host, port = connect_address(remote)
    return ApplyError(
        f"cannot reach the Spark Connect server at {remote} ({host}:{port}): {reason}; is it running?",
        where="profile target: spark.remote",
        hint=f"start the server (sbin/start-connect-server.sh, listening on {host}:{port}), or fix "
        "spark.remote in the profile target (sc://host:port, default port 15002); check that no "
        "firewall is in between",
    )


def unreachable_master_error(master: str, reasons: Mapping[Address, str]) -> ApplyError:
    tried = "; ".join(f"{host}:{port}: {reason}" for (host, port), reason in reasons.items())
    return ApplyError(
        f"cannot reach the Spark master at {master} ({tried}); is it running?",
        where="profile target: spark.master",
        hint="start the master (sbin/start-master.sh) and check its URL on its web UI (spark://host:port, "
        "default port 7077), or fix spark.master in the profile target",
    )


def require_reachable(settings: SparkSettings) -> None:
    """Fail at once, and clearly, when the Connect server or the standalone master of the target
    accepts no connection (Spark would otherwise retry for minutes)."""
    if settings.remote:
        reason = reach(connect_address(settings.remote))
        if reason is not None:
            raise unreachable_connect_error(settings.remote, reason)
        return
    masters = master_addresses(settings.master or LOCAL_MASTER)
    reasons = {address: reach(address) for address in masters}
    if masters and all(reason is not None for reason in reasons.values()):
        raise unreachable_master_error(str(settings.master), {a: r for a, r in reasons.items() if r})


def minor_version(version: str) -> tuple[int, int]:
    """``4.0.1`` → (4, 0); ``3.5.2.dev0`` → (3, 5)."""
    major, minor = [*(int(part) for part in re.findall(r"\d+", version)[:2]), 0, 0][:2]
    return major, minor


def pyspark_version() -> str:
    from pyspark import __version__ as version

    return str(version)


def _pin(version: str) -> str:
    major, minor = minor_version(version)
    return f"pip install 'pyspark=={major}.{minor}.*'"


def connect_version_error(remote: str, server: str, client: str) -> ApplyError | None:
    """The error when the Connect server's Spark and this client's pyspark differ in
    major.minor (maintainer's tasks are Python functions the server's workers unpickle)."""
    if minor_version(server) == minor_version(client):
        return None
    return ApplyError(
        f"the Spark Connect server at {remote} runs Spark {server}, this client has pyspark {client}: "
        "their major.minor versions must match",
        where="profile target: spark.remote",
        hint=f"install the server's pyspark line here ({_pin(server)}), or point spark.remote at a "
        f"Spark {minor_version(client)[0]}.{minor_version(client)[1]} server",
    )


def executor_version_error(where: str, driver: str, report: Mapping[str, str]) -> ApplyError | None:
    """The error when an executor's pyspark (major.minor) or maintainer differs from the
    driver's; ``report`` is what :func:`maintainer.spark.tasks.executor_report` returned there."""
    executor = report["pyspark"]
    if minor_version(executor) != minor_version(driver):
        return ApplyError(
            f"the executors of {where} run Spark {executor} (pyspark {executor}), this driver has "
            f"pyspark {driver}: their major.minor versions must match",
            where="profile target: spark",
            hint=f"install the cluster's pyspark line on this machine ({_pin(executor)}), or run on a "
            f"Spark {minor_version(driver)[0]}.{minor_version(driver)[1]} cluster",
        )
    if report["maintainer"] != __version__:
        return ApplyError(
            f"the executors of {where} run maintainer {report['maintainer']} (Python "
            f"{report['executable']}), this driver runs maintainer {__version__}",
            where="profile target: spark.conf",
            hint=f"install maintainer {__version__} into the executors' Python (the one named by "
            "spark.pyspark.python in the profile target)",
        )
    return None


def master_gave_up_error(master: str, client: str) -> ApplyError:
    """The error when the master dropped this driver's application before any task ran (a
    standalone master of another Spark version cannot even read the driver's registration)."""
    return ApplyError(
        f"the Spark master at {master} did not take this application (it answers, but Spark gave up "
        f"registering with it): is it another Spark version than this pyspark {client}?",
        where="profile target: spark.master",
        hint="a standalone cluster and its drivers must run the same Spark version: install the "
        "cluster's pyspark line here (pip install 'pyspark==X.Y.*', the version on the master's web "
        "UI), or see the master's log for why it refused",
    )


def _stopped(session: SparkSession) -> bool:
    try:
        return bool(session.sparkContext._jsc.sc().isStopped())
    except Exception:  # no JVM context to ask
        return False


def verify_session(settings: SparkSettings, session: SparkSession) -> None:
    """Before any work: a Connect server of this client's Spark version, and executors of a
    cluster (or Connect server) that run this pyspark line and this maintainer (one tiny task)."""
    where = settings.remote or settings.master or LOCAL_MASTER
    if where.startswith("local"):
        return
    client = pyspark_version()
    if settings.remote:
        error = connect_version_error(settings.remote, str(session.version), client)
        if error is not None:
            raise error
    try:
        report = SparkRunner(session).run(executor_report, [None])[0]
    except ApplyError:
        raise
    except Exception as exc:  # a master that gave up on the app stops the SparkContext
        if master_addresses(where) and (STOPPED_CONTEXT in str(exc) or _stopped(session)):
            raise master_gave_up_error(where, client) from exc
        raise
    error = executor_version_error(where, client, report)
    if error is not None:
        raise error


SPARK_LOG = "spark.log"


def project_spark_log(target_dir: Path) -> Path:
    """Where a project's commands send the driver JVM's console output."""
    return target_dir / "logs" / SPARK_LOG


def scratch_spark_log() -> Path:
    """Where a command run without a project (``datagen``) sends it: this user's temp folder."""
    return Path(tempfile.gettempdir()) / f"maintainer-{os.getuid()}" / SPARK_LOG


@contextmanager
def console_into(path: Path | None) -> Iterator[None]:
    """File descriptors 1 and 2 point at ``path`` while the block runs: a JVM started in it
    (pyspark's launcher inherits both) keeps the file as its stdout and stderr for good, so the
    ``java`` launcher's warnings (``Using incubator modules``) and Spark's console log lines
    (``Setting default log level``) never reach the terminal; this process's own are restored
    afterwards."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as log:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = {fd: os.dup(fd) for fd in (1, 2)}
        for fd in saved:
            os.dup2(log.fileno(), fd)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, kept in saved.items():
                os.dup2(kept, fd)
                os.close(kept)


def create_session(settings: SparkSettings, log_path: Path | None = None) -> SparkSession:
    """Build (or reuse) the session; Spark Connect when ``remote`` is set, else ``master``
    (``local[*]`` by default). A Connect server or standalone master that accepts no
    connection, another Spark version, or executors without this maintainer fail here, before
    any work starts, with what to do. With ``log_path``, the driver JVM's console output (its
    log lines, the launcher's warnings) goes to that file instead of this process's stdout and
    stderr."""
    _require_java_for_local(settings)
    require_reachable(settings)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(settings.app_name)
    if settings.remote:
        builder = builder.remote(settings.remote)
    else:
        builder = builder.master(settings.master or LOCAL_MASTER)
    given, defaults = python_environment(settings)
    os.environ.update(given)
    for env, value in defaults.items():
        os.environ.setdefault(env, value)
    for key, value in session_conf(settings).items():
        builder = builder.config(key, value)
    try:
        with console_into(None if settings.remote else log_path):
            session = builder.getOrCreate()
    except Exception as exc:  # pyspark raises many unrelated types here
        raise start_error(settings, exc) from exc
    if not settings.remote:
        session.sparkContext.setLogLevel("ERROR")
    try:
        verify_session(settings, session)
    except BaseException:
        session.stop()
        raise
    return session
