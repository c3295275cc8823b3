"""Ctrl-C and SIGTERM during ``maintainer apply``, each apply in its own process on three datagen
tables (a rollback and a clean each, one thread): the first signal is answered at once, the
running node finishes, no new node starts, run_results.json lists the rest ``cancelled``, the
closing line says how to resume, and the exit code is 128 + the signal. A second signal stops
the running node at its next safe point. Applying the same plan again resumes and completes,
and hudi reads the same rows.

The clean is made slow by a wrapper (``SLOW``) around its fault hook at ``after_inflight``: the
clean is inflight on the timeline, its files not deleted yet, when the signal comes."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.commands import apply_cmd
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.instants.instant import State
from maintainer.hudi.table.state import open_table
from maintainer.runner.lock import read_lock
from maintainer.storage import Storage
from tests.support import artifacts
from tests.support.clean_checks import data_files
from tests.support.oracle import snapshot_rows

TABLES = ("a", "b", "c")
PROMPT_S = 2.0
SLOW = textwrap.dedent(
    """
    import sys, time
    from maintainer.cli import main
    from maintainer.executors.faults import stop_requested
    from maintainer.executors.clean import executor

    hook = executor.maybe_fail

    def slow(service, point):
        if point == "after_inflight":
            print(f"SLOW {service}:{point}", flush=True)
            until = time.monotonic() + float(sys.argv[2])
            while time.monotonic() < until and not stop_requested():
                time.sleep(0.01)
        hook(service, point)

    executor.maybe_fail = slow
    sys.exit(main(["apply", "--project-dir", sys.argv[1], "--threads", "1", *sys.argv[3:]]))
    """
)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A planned project of three tables, each with a failed write to roll back and files to clean."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    assert main(["init", str(project)]) == 0
    profiles = project / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("      engine: auto", "      engine: local"))
    entries = ""
    for index, name in enumerate(TABLES):
        workload = WorkloadSpec(partitions=2, file_groups=2, commits=8, rows_per_commit=30, seed=index)
        generate(str(tmp_path / "lake" / name), DatagenSpec(name, "cow", 6, workload, failed_write=True))
        entries += (
            f"  - name: {name}\n    path: {tmp_path / 'lake' / name}\n    metadata_table: drop\n"
            "    rollback: {min_age: 0s}\n    compaction: {enabled: false}\n    archive: {enabled: false}\n"
            "    clean: {commits_retained: 3}\n"
        )
    (project / "tables" / "example.yml").write_text(f"version: 1\ntables:\n{entries}")
    assert main(["plan", "--project-dir", str(project)]) == 0
    return project


class Apply:
    """``maintainer apply`` in a process of its own (run by ``script``), its output read line by
    line as it comes."""

    script = SLOW

    def __init__(self, root: Path, slow_s: float = 30.0, *options: str) -> None:
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.script, str(root), str(slow_s), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float) -> float:
        """Seconds until a line with ``text`` came (fails after ``timeout``)."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                continue
            self.seen.append(line)
            if text in line:
                return time.monotonic() - began
        raise AssertionError(f"no line with {text!r} within {timeout}s; output:\n{''.join(self.seen)}")

    def finish(self, timeout: float = 60.0) -> tuple[int, str]:
        code = self.process.wait(timeout=timeout)
        time.sleep(0.1)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code, "".join(self.seen)


def rows_of_every_table(root: Path) -> dict[str, list[dict[str, Any]]]:
    return {name: snapshot_rows(root.parent / "lake" / name) for name in TABLES}


def statuses(root: Path) -> dict[str, str]:
    results = artifacts.run_results(root / "target")
    return {node["node"]: node["status"] for node in results["results"]}


def lock_released(table: Path) -> bool:
    """Released as Hudi releases it (the object stays, marked expired), or never taken."""
    record = read_lock(Storage(str(table)))
    return record is None or record.data.expired


def resumes_and_completes(
    root: Path, rows: dict[str, Any], done: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Applying the same plan again skips what was done, runs the rest, exits 0; same rows."""
    assert all(lock_released(root.parent / "lake" / name) for name in TABLES)
    assert read_lock(Storage(str(root.parent / "lake" / "a"))) is not None  # a's was taken, and released
    assert main(["apply", "--project-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"already applied, skipped: {done}" in out and "Apply complete" in out
    assert {node: status for node, status in statuses(root).items() if status != "success"} == dict.fromkeys(
        done.split(", "), "skipped"
    )  # already applied from this plan
    for name in TABLES:
        assert not open_table(str(root.parent / "lake" / name)).snapshot.timeline.pending_cleans(), name
    assert rows_of_every_table(root) == rows


@pytest.mark.parametrize(
    ("signum", "code", "said"), [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_the_first_signal_finishes_the_running_node_cancels_the_rest_and_the_next_apply_resumes(
    root: Path, capsys: pytest.CaptureFixture[str], signum: int, code: int, said: str
) -> None:
    rows = rows_of_every_table(root)
    files_of_b = data_files(root.parent / "lake" / "b")
    apply = Apply(root, slow_s=3.0)
    apply.wait_for("SLOW clean:after_inflight", timeout=60)
    apply.process.send_signal(signum)
    assert apply.wait_for(f"interrupted ({said}): a.clean still running", timeout=PROMPT_S) < PROMPT_S
    exit_code, out = apply.finish()
    assert exit_code == code, out
    assert "no new node will start (a second Ctrl-C stops now, safely)" in out
    assert "OK a.clean" in out  # the running node finished its clean
    plan_dir = root / "target" / "plan"
    assert (
        "Apply interrupted: " in out and "4 nodes cancelled (b.rollback, b.clean, c.rollback ...)" in out
    ), out
    assert f"Run `maintainer apply {plan_dir}` again to resume: done nodes are skipped." in out
    assert statuses(root) == {
        "a.rollback": "success", "a.clean": "success", "b.rollback": "cancelled", "b.clean": "cancelled",
        "c.rollback": "cancelled", "c.clean": "cancelled",
    }  # fmt: skip
    assert "applied state of 1 table(s) kept in" in out  # the state: a only (b and c were cancelled)
    assert data_files(root.parent / "lake" / "b") == files_of_b  # nothing started there
    resumes_and_completes(root, rows, "a.clean, a.rollback", capsys)


def test_a_second_ctrl_c_stops_the_running_node_at_its_next_safe_point_and_the_next_apply_finishes_it(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = rows_of_every_table(root)
    table = root.parent / "lake" / "a"
    apply = Apply(root, slow_s=60.0)
    apply.wait_for("SLOW clean:after_inflight", timeout=60)
    files_before = data_files(table)  # the rollback done, the clean inflight
    apply.process.send_signal(signal.SIGINT)
    apply.wait_for("interrupted (Ctrl-C)", timeout=PROMPT_S)
    apply.process.send_signal(signal.SIGINT)
    stopping = "stopping now: the running nodes (a.clean) stop at their next safe point"
    assert apply.wait_for(stopping, timeout=PROMPT_S) < PROMPT_S
    began = time.monotonic()
    exit_code, out = apply.finish()
    assert time.monotonic() - began < 10, "the slow step (60 s) was not waited for"
    assert exit_code == 130, out
    assert "stopped at a safe point (clean:after_inflight)" in out
    results = statuses(root)
    assert results["a.rollback"] == "success" and results["a.clean"] == "cancelled"
    assert {results[f"{name}.{service}"] for name in "bc" for service in ("rollback", "clean")} == {
        "cancelled"
    }
    (pending,) = open_table(str(table)).snapshot.timeline.pending_cleans()
    assert pending.state is State.INFLIGHT and data_files(table) == files_before  # stopped before deleting
    assert "Run `maintainer apply" in out and "again to resume" in out
    resumes_and_completes(root, rows, "a.rollback", capsys)
    assert data_files(table) < files_before  # the inflight clean was finished


def test_quiet_still_says_it_was_interrupted_and_run_results_are_valid(root: Path) -> None:
    apply = Apply(root, 3.0, "--quiet")
    apply.wait_for("SLOW clean:after_inflight", timeout=60)
    apply.process.send_signal(signal.SIGINT)
    assert apply.wait_for("interrupted (Ctrl-C): a.clean still running", timeout=PROMPT_S) < PROMPT_S
    exit_code, out = apply.finish()
    assert exit_code == 130 and "START" not in out
    assert "Apply interrupted: " in out and "again to resume" in out  # the closing line, as always
    document = artifacts.run_results(root / "target")  # validated against schemas/run_results.v2.json
    assert document["status"] == "cancelled"
    document = json.loads((root / "target" / "run_results.json").read_text())
    cancelled = [node for node in document["results"] if node["status"] == "cancelled"]
    assert len(cancelled) == 4 and all(node["timing"] == [] for node in cancelled)
    assert all(node["message"] == "cancelled: not started, the apply was interrupted" for node in cancelled)


def test_ctrl_c_before_any_node_runs_exits_130_and_touches_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = rows_of_every_table(root)
    files = {name: data_files(root.parent / "lake" / name) for name in TABLES}

    def ctrl_c(project: object) -> None:
        raise KeyboardInterrupt  # as Python raises it for a Ctrl-C outside the node walk

    monkeypatch.setattr(apply_cmd, "check_state", ctrl_c)
    assert main(["apply", "--project-dir", str(root)]) == 130
    assert "error: interrupted (Ctrl-C)" in capsys.readouterr().err
    assert not (root / "target" / "run_results.json").exists()
    assert {name: data_files(root.parent / "lake" / name) for name in TABLES} == files
    assert rows_of_every_table(root) == rows
