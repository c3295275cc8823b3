"""Ctrl-C twice during a compaction on Spark, in a process of its own (two merge-on-read datagen
tables, one thread): the first signal lets the compaction go on and cancels the other table's
node, the second cancels the running Spark job at once (it would run for minutes) and the node
ends ``cancelled``, its compaction left inflight. Applying the same plan again finishes that
compaction and the other table's, and hudi reads the same rows.

The compaction is kept busy by a wrapper (``SPARK_SLOW``) that runs a long Spark job at its
``after_inflight`` fault point, on the apply's own session."""

from __future__ import annotations

import signal
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.table.state import open_table
from tests.e2e.test_cli_apply_interrupt import PROMPT_S, Apply
from tests.support import artifacts
from tests.support.oracle import snapshot_rows

pytestmark = pytest.mark.spark

TABLES = ("a", "b")
REWRITTEN = ("_hoodie_file_name",)
"""What a compaction changes in a row: the file it is in."""
SPARK_SLOW = textwrap.dedent(
    """
    import sys, time
    from pyspark.sql import SparkSession
    from maintainer.cli import main
    from maintainer.executors.compaction import executor

    hook = executor.maybe_fail

    def busy(service, point):
        if point == "after_inflight":
            print(f"SLOW {service}:{point}", flush=True)
            session = SparkSession.builder.getOrCreate()
            seconds = float(sys.argv[2])  # read here: the executors' sys.argv is not ours
            session.sparkContext.parallelize(range(2), 2).foreach(lambda _: time.sleep(seconds))
        hook(service, point)

    executor.maybe_fail = busy
    sys.exit(main(["apply", "--project-dir", sys.argv[1], "--threads", "1"]))
    """
)


class SparkApply(Apply):
    script = SPARK_SLOW


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any) -> Path:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    assert main(["init", str(project)]) == 0
    profiles = project / "profiles.yml"
    text = profiles.read_text().replace('master: "local[*]"', 'master: "local[2]"', 1)
    profiles.write_text(text.replace("      engine: auto", "      engine: spark", 1))
    entries = ""
    for index, name in enumerate(TABLES):
        workload = WorkloadSpec(partitions=1, file_groups=2, commits=4, rows_per_commit=20, seed=index)
        generate(str(tmp_path / "lake" / name), DatagenSpec(name, "mor", 6, workload))
        entries += (
            f"  - name: {name}\n    path: {tmp_path / 'lake' / name}\n    metadata_table: drop\n"
            "    rollback: {enabled: false}\n    clean: {enabled: false}\n    archive: {enabled: false}\n"
            "    compaction: {trigger: {max_delta_commits: 1}, strategy: {name: unbounded}}\n"
        )
    (project / "tables" / "example.yml").write_text(f"version: 1\ntables:\n{entries}")
    assert main(["plan", "--project-dir", str(project)]) == 0
    return project


def test_a_second_ctrl_c_cancels_the_running_spark_job_and_the_next_apply_finishes_the_compaction(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = root.parent / "lake"
    rows = {name: snapshot_rows(lake / name, drop=REWRITTEN) for name in TABLES}
    apply = SparkApply(root, 600.0)
    apply.wait_for("SLOW compaction:after_inflight", timeout=240)
    time.sleep(2.0)  # the Spark job's tasks are running
    apply.process.send_signal(signal.SIGINT)
    assert apply.wait_for("interrupted (Ctrl-C): a.compaction still running", timeout=PROMPT_S) < PROMPT_S
    apply.process.send_signal(signal.SIGINT)
    assert apply.wait_for("stopping now: the running nodes (a.compaction)", timeout=PROMPT_S) < PROMPT_S
    began = time.monotonic()
    exit_code, out = apply.finish(timeout=120)
    assert time.monotonic() - began < 60, "the Spark job (600 s) was not cancelled"
    assert exit_code == 130, out
    results = {n["node"]: n for n in artifacts.run_results(root / "target")["results"]}
    assert results["a.compaction"]["status"] == "cancelled"
    assert results["a.compaction"]["message"].startswith("stopped while running, as asked")
    assert "cancelled" in results["a.compaction"]["message"]  # the Spark job, by the stop
    assert results["b.compaction"]["status"] == "cancelled"
    (pending,) = open_table(str(lake / "a")).snapshot.timeline.pending_compactions()
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert "Apply complete" in capsys.readouterr().out
    for name in TABLES:
        assert not open_table(str(lake / name)).snapshot.timeline.pending_compactions(), name
        assert snapshot_rows(lake / name, drop=REWRITTEN) == rows[name], name
    completed = {i.timestamp for i in open_table(str(lake / "a")).snapshot.timeline.completed()}
    assert pending.timestamp in completed  # the inflight compaction was finished, not replaced
