"""A crash campaign (issue 12): real ``kill -9`` of ``maintainer apply`` at random moments.

Each run generates a small table (COW or MOR, table version 6 or 8, sometimes with a failed
write to roll back), records what ``hudi`` reads (the snapshot and every completed commit as of
its time), plans rollback, compaction, clean and archive, and starts ``maintainer apply`` in a
child process. A watcher polls the table's files and sends SIGKILL right after the k-th change
it sees (k drawn at random), so kills land between, and inside, the steps that write the table:
the lock, requested, inflight, data files, completed, deletions, the archive. Then recovery runs
as a user would (apply the same plan again, then plan and apply once more) and the table must:
read the same rows with ``hudi`` (now, and as of every commit the cleaner retained), hold no pending instant
of maintainer's services, and hold no lock of a live process.

The draw is seeded; ``MAINTAINER_CRASH_RUNS`` (default 3) and ``MAINTAINER_CRASH_SEED`` choose how
many runs and which ones, so a failure is replayed with the seed it prints.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.payloads import decode_clean_metadata
from maintainer.hudi.table.state import open_table
from maintainer.runner.lock import LOCK_PATH, LockRecord
from tests.support import oracle

pytestmark = [pytest.mark.spark, pytest.mark.slow]

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
RUNS = int(os.environ.get("MAINTAINER_CRASH_RUNS", "3"))
SEED = int(os.environ.get("MAINTAINER_CRASH_SEED", "20261123"))
SERVICES = (
    "rollback: {min_age: 0s}\n"
    "compaction: {trigger: {max_delta_commits: 2}}\n"
    "clean: {commits_retained: 1}\n"
    "archive: {keep_min_commits: 2, keep_max_commits: 3}"
)
MAINTENANCE = (Action.CLEAN, Action.COMPACTION, Action.ROLLBACK)
POLL_S = 0.005
APPLY_TIMEOUT_S = 240.0


@dataclass(frozen=True)
class Scenario:
    seed: int
    kind: str
    version: int
    failed_write_at: int | None
    kill_after_changes: int

    @classmethod
    def draw(cls, rng: random.Random, seed: int) -> Scenario:
        return cls(
            seed=seed,
            kind=rng.choice(("cow", "mor")),
            version=rng.choice((6, 8)),
            failed_write_at=rng.choice((None, 5)),
            kill_after_changes=rng.randint(1, 24),
        )


def file_state(path: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``path``: size and modification time (what a change is, to the watcher)."""
    state: dict[str, tuple[int, int]] = {}
    for root, _, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            try:
                stat = os.lstat(full)
            except FileNotFoundError:
                continue
            state[full] = (stat.st_size, stat.st_mtime_ns)
    return state


def changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> int:
    created_or_changed = sum(1 for name, stat in after.items() if before.get(name) != stat)
    return created_or_changed + sum(1 for name in before if name not in after)


def apply_and_kill(root: Path, table: Path, kill_after: int) -> str:
    """Start ``maintainer apply`` in a child process; SIGKILL it right after the watcher has
    seen ``kill_after`` file changes in the table. Returns what happened ("killed after N
    changes" or "finished (exit N) before the kill")."""
    command = [str(Path(sys.executable).with_name("maintainer")), "apply", "--project-dir", str(root)]
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    seen, last, deadline = 0, file_state(table), time.monotonic() + APPLY_TIMEOUT_S
    try:
        while child.poll() is None:
            assert time.monotonic() < deadline, "apply did not finish in time"
            time.sleep(POLL_S)
            now = file_state(table)
            seen += changes(last, now)
            last = now
            if seen >= kill_after:
                child.send_signal(signal.SIGKILL)
                child.wait()
                return f"killed after {seen} change(s)"
        return f"finished (exit {child.returncode}) before the kill"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def make_table(path: Path, scenario: Scenario) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=8, rows_per_commit=8, seed=scenario.seed)
    failed_at = scenario.failed_write_at
    spec = DatagenSpec("t", scenario.kind, scenario.version, workload, failed_write_at=failed_at)
    generate(str(path), spec)


def rows_as_of_every_commit(path: Path) -> dict[str, list[dict[str, Any]]]:
    return {ts: oracle.snapshot_rows(path, as_of=ts, drop=META) for ts in oracle.completed_commit_times(path)}


def recover(root: Path, context: str) -> None:
    """What a user does after a crash: apply the same plan again (it resumes, or says it was
    applied), then plan and apply once more; the second round must succeed."""
    main(["apply", "--project-dir", str(root)])
    assert main(["plan", "--project-dir", str(root)]) in (0, 2), f"plan after recovery failed: {context}"
    assert main(["apply", "--project-dir", str(root)]) == 0, f"apply after recovery failed: {context}"


def time_travel_floor(path: Path) -> str:
    """The earliest commit a clean has promised to keep readable (time travel before it may
    find cleaned file versions gone, as Hudi's cleaner intends): the greatest earliest commit to
    retain of the completed cleans, "" when none ran."""
    table = open_table(str(path))
    timeline, floor = table.snapshot.timeline, ""
    for instant in timeline.of_action(Action.CLEAN):
        entry = timeline.entry(instant.timestamp, instant.action)
        if not instant.is_completed or entry is None:
            continue
        name = f"{timeline.directory}/{entry.state_files[State.COMPLETED]}"
        metadata = decode_clean_metadata(table.storage.read_bytes(name), name)
        if metadata is not None:
            floor = max(floor, metadata.earliest_commit_to_retain)
    return floor


def live_lock(table: Path) -> bool:
    """Is the table locked by a process that still runs? A kill after the last node's record
    but before the lock's release leaves the killed apply's lock; recovery then has nothing to
    apply, so nothing takes it, and the next apply with changes takes it over (its owner is
    gone). Only a lock whose owner still runs would block maintenance."""
    path = table / LOCK_PATH
    if not path.exists():
        return False
    record = LockRecord.decode(path.read_bytes())
    return record is not None and not record.owner_is_gone(socket.gethostname())


def pending_maintenance(path: Path) -> list[str]:
    timeline = open_table(str(path)).snapshot.timeline
    return [f"{i.action.value} {i.timestamp} {i.state.value}" for i in timeline.of_action(*MAINTENANCE)
            if not i.is_completed]  # fmt: skip


@pytest.mark.parametrize("run", range(RUNS))
def test_apply_killed_at_a_random_moment_recovers_every_row(
    run: int, project: Callable[[Path, str], Path], tmp_path: Path
) -> None:
    seed = SEED + run
    scenario = Scenario.draw(random.Random(seed), seed)
    table = tmp_path / "t"
    make_table(table, scenario)
    rows = oracle.snapshot_rows(table, drop=META)
    as_of = rows_as_of_every_commit(table)
    root = project(table, SERVICES)
    assert main(["plan", "--project-dir", str(root)]) in (0, 2)

    outcome = apply_and_kill(root, table, scenario.kill_after_changes)
    context = f"{scenario} {outcome}"
    assert oracle.snapshot_rows(table, drop=META) == rows, f"rows changed right after the kill: {context}"

    recover(root, context)
    assert oracle.snapshot_rows(table, drop=META) == rows, f"rows changed after recovery: {context}"
    floor = time_travel_floor(table)
    for timestamp in oracle.completed_commit_times(table):
        if timestamp in as_of and timestamp >= floor:
            assert oracle.snapshot_rows(table, as_of=timestamp, drop=META) == as_of[timestamp], (
                f"time travel to {timestamp} changed: {context}"
            )
    assert pending_maintenance(table) == [], context
    assert not live_lock(table), f"a live lock left behind: {context}"
