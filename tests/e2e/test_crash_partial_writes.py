"""Partial writes (issue 29): ``maintainer apply`` killed half-way through a file it writes.

A census apply (``MAINTAINER_FAULT_PARTIAL_WRITE=count:FILE``) lists every whole-file write of
an apply: the lock, each instant file, the metadata table's files, rollback blocks, archive
files, the ledger, and ``hoodie.properties`` with its backup for ``metadata_table: drop``. Then,
for each write N, the table is restored, and ``maintainer apply`` runs in a child process with
``MAINTAINER_FAULT_PARTIAL_WRITE=N``: its N-th write puts half its bytes on disk where the
write puts them (the temporary file: writes are atomic) and the process kills itself with
SIGKILL, as a crash mid-write would. Then, as a user would: the rows read the same with
``hudi`` right away; the same plan is applied again, then a new plan is made and applied; the
rows are still exact, ``maintainer inspect --check-metadata`` is clean, no maintenance instant
is left pending, no temporary file is left in the metadata folders.

By default a seeded sample of the points runs (every point of ``drop``); all of them with
``MAINTAINER_CRASH_PARTIAL=all``. The points per service are printed (``-s``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.heartbeat import HEARTBEAT_DIR
from maintainer.storage.atomic import PARTIAL_WRITE_ENV, is_temp_name
from tests.e2e.test_crash_campaign import META, live_lock, pending_maintenance
from tests.support import oracle

pytestmark = [pytest.mark.spark, pytest.mark.slow]

EVERY_POINT = os.environ.get("MAINTAINER_CRASH_PARTIAL", "") == "all"
SAMPLED = 2
"""Points per service run by default (seeded by ``MAINTAINER_CRASH_SEED``)."""
SEED = int(os.environ.get("MAINTAINER_CRASH_SEED", "20261123"))
APPLY_TIMEOUT_S = 240.0
SERVICES = (
    "rollback: {min_age: 0s}\n"
    "compaction: {trigger: {max_delta_commits: 2}}\n"
    "clean: {commits_retained: 1}\n"
    "archive: {keep_min_commits: 2, keep_max_commits: 3}"
)
DROP = "metadata_table: drop\nrollback: {min_age: 0s}"
SAVEPOINT = "savepoints: {instants: ['COMMIT']}"
"""A savepoint at the table's third completed commit (COMMIT is replaced by its time)."""


KNOWN_SERVICES = ("rollback", "compaction", "clean", "archive", "savepoint")


def service_named(name: str) -> str:
    """The service a ledger record or plan node name starts with (``savepoint_create``: savepoint)."""
    return next((known for known in KNOWN_SERVICES if name.startswith(known)), name)


@dataclass(frozen=True)
class Write:
    number: int
    path: str
    service: str


def _action_service(name: str) -> str | None:
    for marker, service in ((".clean", "clean"), (".rollback", "rollback"), (".compaction", "compaction"),
                            (".savepoint", "savepoint")):  # fmt: skip
        if marker in name:
            return service
    return None


def attribute(lines: list[str], table: Path) -> list[Write]:
    """Each census line (number, path) with the service whose write it is: the lock and
    ``hoodie.properties`` (the drop) by path, the rest by the latest instant file written
    before or by it (the metadata table's files belong to the instant they mirror)."""
    writes, current = [], "?"
    for line in lines:
        number, _, full = line.partition("\t")
        path = os.path.relpath(full, table)
        name = os.path.basename(path)
        if path.startswith(".hoodie/.locks/"):
            service = "lock"
        elif name.startswith("hoodie.properties"):
            service = "drop"
        elif "/history/" in path or "/archived/" in path:
            service = current = "archive"
        elif path.startswith(".hoodie/.maintainer/applied/"):  # the ledger record of a node
            service = service_named(name)
        else:
            found = _action_service(name) if not path.startswith(".hoodie/metadata/") else None
            current = found or current
            service = current
        writes.append(Write(int(number), path, service))
    return writes


def profiles_without_spark(root: Path) -> None:
    """The project's dev target runs every node in process (no JVM in the child applies)."""
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local", 1))


def run_apply(root: Path, env: dict[str, str]) -> int:
    command = [str(Path(sys.executable).with_name("maintainer")), "apply", "--project-dir", str(root)]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, **env}, timeout=APPLY_TIMEOUT_S, check=False)  # fmt: skip
    return done.returncode


def restore(table: Path, pristine: Path) -> None:
    shutil.rmtree(table)
    shutil.copytree(pristine, table, symlinks=True)


def leftover_temp_files(table: Path) -> list[str]:
    folders = [table / ".hoodie", table / ".hoodie" / "timeline", table / ".hoodie" / "metadata" / ".hoodie"]
    folders += [table / HEARTBEAT_DIR, table / ".hoodie" / "metadata" / HEARTBEAT_DIR]
    return [str(p) for folder in folders if folder.is_dir() for p in folder.iterdir() if is_temp_name(p.name)]


def chosen(writes: list[Write]) -> list[Write]:
    if EVERY_POINT:
        return writes
    rng = random.Random(SEED)
    by_service: dict[str, list[Write]] = {}
    for write in writes:
        by_service.setdefault(write.service, []).append(write)
    picked = []
    for service, of_service in sorted(by_service.items()):
        picked += of_service if service == "drop" else rng.sample(of_service, min(SAMPLED, len(of_service)))
    return sorted(picked, key=lambda w: w.number)


@dataclass(frozen=True)
class Scenario:
    kind: str
    version: int
    metadata_table: bool
    services: str


SCENARIOS = {
    "mor-v8-sync": Scenario("mor", 8, True, SERVICES),
    "mor-v8": Scenario("mor", 8, False, SERVICES),
    "cow-v6": Scenario("cow", 6, False, SERVICES),
    "drop": Scenario("mor", 8, True, DROP),
    "cow-v8-savepoint": Scenario("cow", 8, False, f"{SAVEPOINT}\nclean: {{commits_retained: 1}}"),
}


def services_with_changes(root: Path) -> set[str]:
    plan = json.loads((root / "target" / "plan" / "plan.json").read_text())
    nodes = [node for table in plan["tables"] for node in table["nodes"]]
    return {service_named(node["service"]) for node in nodes if node["status"] == "changes"}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_apply_killed_half_way_through_any_write_recovers(
    name: str, project: Callable[[Path, str], Path], tmp_path: Path
) -> None:
    scenario = SCENARIOS[name]
    table, pristine, census = tmp_path / "t", tmp_path / "pristine", tmp_path / "census.txt"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=8, rows_per_commit=8, seed=SEED)
    spec = DatagenSpec("t", scenario.kind, scenario.version, workload, failed_write_at=5,
                       metadata_table=scenario.metadata_table)  # fmt: skip
    generate(str(table), spec)
    rows = oracle.snapshot_rows(table, drop=META)
    third_commit = oracle.completed_commit_times(table)[2]
    root = project(table, scenario.services.replace("COMMIT", third_commit))
    profiles_without_spark(root)
    assert main(["plan", "--project-dir", str(root)]) == 0
    shutil.copytree(table, pristine, symlinks=True)
    shutil.copytree(root / "target" / "plan", tmp_path / "plan")

    assert run_apply(root, {PARTIAL_WRITE_ENV: f"count:{census}"}) == 0
    writes = attribute(census.read_text().splitlines(), table)
    counts = Counter(write.service for write in writes)
    print(f"\npartial-write points of {name}: {dict(sorted(counts.items()))}")
    assert "?" not in counts, writes
    expected = services_with_changes(root) | {"lock"} | ({"drop"} if scenario.services == DROP else set())
    assert expected <= set(counts), (expected, counts)

    for write in chosen(writes):
        restore(table, pristine)
        restore(root / "target" / "plan", tmp_path / "plan")  # the plan reviewed, not recovery's
        context = f"write {write.number} ({write.service}: {write.path})"
        assert run_apply(root, {PARTIAL_WRITE_ENV: str(write.number)}) == -signal.SIGKILL, context
        assert oracle.snapshot_rows(table, drop=META) == rows, f"rows changed right after the kill: {context}"
        main(["apply", "--project-dir", str(root)])  # the same plan: it resumes
        assert main(["plan", "--project-dir", str(root)]) in (0, 2), context
        assert main(["apply", "--project-dir", str(root)]) == 0, context
        assert oracle.snapshot_rows(table, drop=META) == rows, f"rows changed after recovery: {context}"
        if (table / ".hoodie" / "metadata").exists():
            assert main(["inspect", str(table), "--check-metadata"]) == 0, context
        assert pending_maintenance(table) == [], context
        assert not live_lock(table), context
        assert leftover_temp_files(table) == [], context
