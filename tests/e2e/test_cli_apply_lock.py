"""Two ``maintainer apply`` of one plan racing, each in its own process, on local disk and on a
real S3 server: exactly one proceeds, the other says who holds the table's lock. Each apply holds
the lock a second longer than its node takes (a test wrapper around ``TableLock.acquire``), and
both start at the same moment, so their locks always overlap."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.hudi.lock import LOCK_PATH, StorageLockData
from maintainer.runner.lock import Owner
from maintainer.storage import Storage

RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from maintainer.cli import main
    from maintainer.runner import lock

    acquire = lock.TableLock.acquire

    def acquire_and_hold(self):
        acquire(self)
        print(f"holding {self.owner}", flush=True)
        time.sleep(3.0)

    lock.TableLock.acquire = acquire_and_hold
    go = Path(sys.argv[1])
    while not go.exists():
        time.sleep(0.002)
    sys.exit(main(["apply", "--project-dir", sys.argv[2]]))
    """
)


def project(work: Path, table: str, options: dict[str, Any]) -> Path:
    option_args = [arg for key, value in options.items() for arg in ("--storage-option", f"{key}={value}")]
    datagen = ["datagen", table, "--commits", "3", "--partitions", "1", "--file-groups", "1",
               "--rows-per-commit", "10", "--failed-write", "--engine", "local", *option_args]  # fmt: skip
    assert main(datagen) == 0
    root = work / "project"
    assert main(["init", str(root)]) == 0
    profiles = root / "profiles.yml"
    target = "      engine: local"
    if options:
        target += f"\n      storage_options: {json.dumps({k: str(v) for k, v in options.items()})}"
    profiles.write_text(profiles.read_text().replace("      engine: auto", target))
    manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n    rollback: {{min_age: 0s}}\n"
    (root / "tables" / "example.yml").write_text(manifest)
    assert main(["plan", "--project-dir", str(root)]) == 0
    return root


def race(work: Path, root: Path) -> list[tuple[int, str, int]]:
    """(exit code, output, pid) of each of two applies started at the same moment."""
    go = work / "go"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(go), str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
            cwd=work,
        )
        for _ in range(2)
    ]
    time.sleep(0.5)  # both are importing maintainer; then both go
    go.write_text("go")
    outcomes = []
    for racer in racers:
        output, _ = racer.communicate(timeout=180)
        outcomes.append((racer.returncode, output, racer.pid))
    return outcomes


def check_one_proceeded(outcomes: list[tuple[int, str, int]], lock: StorageLockData) -> None:
    """Exactly one took the lock and ran; the other was refused naming it (or, started late on
    a loaded machine, found the plan applied already: nothing to do, exit 0)."""
    (winner,) = [pid for _, output, pid in outcomes if "holding" in output]
    ((code, loser_output),) = [(code, output) for code, output, pid in outcomes if pid != winner]
    flat = " ".join(loser_output.split())
    host = re.escape(socket.gethostname())
    holder = rf"locked by another apply or writer: maintainer on {host} pid {winner} \(plan \w{{12}}\)"
    assert [c for c, _, pid in outcomes if pid == winner] == [0], outcomes
    assert (code == 1 and re.search(holder, flat)) or (code == 0 and "was already applied" in flat), outcomes
    owner = Owner.parse(lock.owner)
    assert lock.expired and owner is not None and owner.pid == winner, "released by the winner, as Hudi does"


def test_two_applies_racing_on_local_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    table = tmp_path / "t"
    root = project(tmp_path, str(table), {})
    outcomes = race(tmp_path, root)
    check_one_proceeded(outcomes, StorageLockData.decode((table / LOCK_PATH).read_bytes()))


@pytest.mark.servers
def test_two_applies_racing_on_s3(s3_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    table = s3_server.create_bucket("apply-lock-race") + "/lake/t"
    root = project(tmp_path, table, s3_server.storage_options())
    before = len(s3_server.requests())
    outcomes = race(tmp_path, root)
    lock = Storage(table, s3_server.storage_options()).read_bytes(LOCK_PATH)
    check_one_proceeded(outcomes, StorageLockData.decode(lock))
    lock_key = f"/apply-lock-race/lake/t/{LOCK_PATH}"
    refused = [r for r in s3_server.requests()[before:] if r.path == lock_key and r.status == 412]
    assert refused, "the server refused at least one conditional write (the endpoint check, or the loser)"


HOLDER = textwrap.dedent(
    """
    import sys, time
    from maintainer.cli import main
    from maintainer.runner import lock

    acquire = lock.TableLock.acquire

    def acquire_and_wait(self):
        acquire(self)
        print(f"holding {self.owner}", flush=True)
        sys.stdin.readline()  # hold the lock (renewed) until the test says go on

    lock.TableLock.acquire = acquire_and_wait
    sys.exit(main(["apply", "--project-dir", sys.argv[1]]))
    """
)


APPLY = "import sys; from maintainer.cli import main; sys.exit(main(['apply', '--project-dir', sys.argv[1]]))"


def _can_unshare_pid() -> bool:
    try:
        probe = ["unshare", "--pid", "--fork", "true"]
        done = subprocess.run(probe, check=False, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def test_an_apply_in_another_pid_namespace_never_takes_a_held_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Containers sharing the host name (``--network host``, ``hostNetwork``) but not PIDs: the
    holder's pid does not exist in the second apply's namespace, which proves nothing; the second
    apply fails naming the holder (stopped, alive) and changes nothing."""
    if not _can_unshare_pid():
        pytest.skip("unshare --pid --fork is not permitted here (needs root or user namespaces)")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    table = tmp_path / "t"
    root = project(tmp_path, str(table), {})
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        cwd=tmp_path,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        while not (line := holder.stdout.readline()).startswith("holding"):
            assert line, "the holder ended before taking the lock"
        os.kill(holder.pid, 19)  # SIGSTOP: alive, not renewing
        timeline_before = sorted(p.name for p in (table / ".hoodie").iterdir())
        second = subprocess.run(
            ["unshare", "--pid", "--fork", sys.executable, "-c", APPLY, str(root)],
            check=False,
            capture_output=True,
            text=True,
            env=environment,
            cwd=tmp_path,
            timeout=180,
        )
        flat = " ".join((second.stdout + second.stderr).split())
        assert second.returncode == 1, flat
        host = re.escape(socket.gethostname())
        holder_named = rf"locked by another apply or writer: maintainer on {host} pid {holder.pid} "
        assert re.search(holder_named, flat), flat
        assert "taking over" not in flat
        assert sorted(p.name for p in (table / ".hoodie").iterdir()) == timeline_before
        os.kill(holder.pid, 18)  # SIGCONT
        holder.stdin.write("go on\n")
        holder.stdin.flush()
        output, _ = holder.communicate(timeout=180)
        assert holder.returncode == 0, output
    finally:
        if holder.poll() is None:
            os.kill(holder.pid, 18)
            holder.kill()
    lock = StorageLockData.decode((table / LOCK_PATH).read_bytes())
    owner = Owner.parse(lock.owner)
    assert lock.expired and owner is not None and owner.pid == holder.pid
