"""The target's Spark: the JDK (local and cluster masters) or the Connect server and its client
packages, a session started and stopped, and one task on an executor that imports maintainer
(the same version as here)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from maintainer import __version__
from maintainer.diagnostics.checks import CheckResult, attempt, failed, from_error, passed, skipped
from maintainer.errors import ApplyError, MaintainerError
from maintainer.project.profiles import SparkSettings, TargetSettings
from maintainer.spark.session import (
    CONNECT_HINT,
    LOCAL_MASTER,
    connect_address,
    create_session,
    pyspark_version,
    reach,
)
from maintainer.spark.tasks import SparkRunner, executor_report

GROUP = "spark"
CONNECT_PACKAGES = {
    "grpc": "grpcio",
    "grpc_status": "grpcio-status",
    "google.rpc": "googleapis-common-protos",
    "zstandard": "zstandard",
}
REACH_TIMEOUT_S = 5.0
JAVA_HINT = (
    "install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) and put it on PATH or set "
    "JAVA_HOME; or point the target at a Spark Connect server with `remote:`"
)


def check_spark(
    target: TargetSettings, *, start_session: bool = True, log_path: Path | None = None
) -> list[CheckResult]:
    """The Spark checks of a target, in order (an unmet premise skips what follows); the JVM's
    console output goes to ``log_path``."""
    settings = target.spark
    if target.engine == "local":
        return [skipped(GROUP, "spark", "engine: local runs every node in this process, never on Spark")]
    first = check_spark_premises(target)
    if any(result.status.value == "failed" for result in first):
        return [*first, *_skipped_session("a check above failed")]
    if not start_session:
        return [*first, *_skipped_session("--no-spark")]
    return [*first, *check_session(settings, log_path)]


def _skipped_session(why: str) -> list[CheckResult]:
    return [skipped(GROUP, "session", why), skipped(GROUP, "executor", why)]


def check_spark_premises(target: TargetSettings) -> list[CheckResult]:
    """What a session on this target needs before it starts (no session started): the JDK for
    a local or cluster master, the Connect client packages and the server's port for ``remote:``."""
    return check_connect(target.spark) if target.spark.remote else [check_java()]


def check_java() -> CheckResult:
    """A JDK new enough for this pyspark (Spark 4 needs 17, Spark 3.5 runs on 8+), found where
    pyspark's launcher looks: ``$JAVA_HOME/bin/java``, else ``java`` on PATH."""
    java_home = os.environ.get("JAVA_HOME", "").strip()
    java = _runnable(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if java is None:
        where = f"no runnable java at $JAVA_HOME/bin/java ({java_home})" if java_home else "no `java` on PATH"
        return failed(GROUP, "JDK", where, JAVA_HINT)
    version = java_version(java)
    needed = 17 if _major(pyspark_version()) >= 4 else 8
    if version is None:
        return failed(GROUP, "JDK", f"{java} did not say its version", JAVA_HINT)
    if java_major(version) < needed:
        return failed(GROUP, "JDK", f"Java {version} at {java}; pyspark {pyspark_version()} needs {needed}+",
                      JAVA_HINT)  # fmt: skip
    return passed(GROUP, "JDK", f"Java {version} ({java})")


def _runnable(path: Path) -> str | None:
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def java_version(java: str) -> str | None:
    try:
        shown = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "([^"]+)"', shown.stderr + shown.stdout)
    return match.group(1) if match else None


def java_major(version: str) -> int:
    """``17.0.15`` → 17; ``1.8.0_392`` → 8."""
    parts = version.split(".")
    head = parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0]
    return _major(head)


def _major(version: str) -> int:
    digits = re.match(r"\d+", version)
    return int(digits.group(0)) if digits else 0


def check_connect(settings: SparkSettings) -> list[CheckResult]:
    """The Connect client packages are importable and the server's port answers."""
    missing = [package for module, package in CONNECT_PACKAGES.items() if not _importable(module)]
    if missing:
        packages = failed(GROUP, "Connect client", f"missing: {', '.join(missing)}", CONNECT_HINT)
    else:
        packages = passed(GROUP, "Connect client", f"installed ({', '.join(CONNECT_PACKAGES.values())})")
    return [packages, check_reachable(str(settings.remote))]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_reachable(remote: str) -> CheckResult:
    host, port = connect_address(remote)
    why = reach((host, port), timeout=REACH_TIMEOUT_S)
    if why is not None:
        return failed(
            GROUP,
            "Connect server",
            f"cannot reach {host}:{port} ({remote}): {why}",
            "start the Spark Connect server (sbin/start-connect-server.sh) or fix spark.remote in the "
            "profile target; check that no firewall is in between",
        )
    return passed(GROUP, "Connect server", f"{host}:{port} answers")


def check_session(settings: SparkSettings, log_path: Path | None = None) -> list[CheckResult]:
    """Start a session, run one task on an executor, stop the session."""
    where = settings.remote or settings.master or LOCAL_MASTER
    running = _active_session()
    try:
        session = create_session(settings, log_path=log_path)
    except MaintainerError as error:
        return [from_error(GROUP, "session", error), skipped(GROUP, "executor", "no session")]
    try:
        started = passed(GROUP, "session", f"Spark {session.version} on {where}")
        return [started, attempt(GROUP, "executor", lambda: _run_on_executor(session))]
    finally:
        if session is not running:  # a session this process already had is not ours to stop
            session.stop()


def _active_session() -> Any:
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def _run_on_executor(session: Any) -> str:
    report = SparkRunner(session).run(executor_report, [0])[0]
    if report["maintainer"] != __version__:
        raise ApplyError(
            f"the executors run maintainer {report['maintainer']}, this is {__version__}",
            hint="install the same maintainer version into the executors' Python "
            "(spark.pyspark.python in the profile target's spark.conf)",
        )
    return (
        f"imports maintainer {report['maintainer']} (Python {report['python']}, "
        f"pyspark {report['pyspark']}, {report['executable']})"
    )
