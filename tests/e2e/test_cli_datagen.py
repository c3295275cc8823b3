"""``maintainer datagen`` through the CLI: a real table, its expected rows, and refusals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.datagen.workload import DATA_SCHEMA
from tests.support import oracle


def test_datagen_writes_a_table_hudi_reads_and_its_expected_rows(tmp_path: Path) -> None:
    table = tmp_path / "trips"
    args = ["datagen", str(table), "--table-type", "mor", "--table-version", "8", "--commits", "3",
            "--rows-per-commit", "30", "--failed-write", "--engine", "local"]  # fmt: skip
    assert main(args) == 0
    lines = [json.loads(line) for line in Path(f"{table}.expected.jsonl").read_text().splitlines()]
    assert len(lines) == 2  # the third write was left inflight
    assert [line["instant"] for line in lines] == oracle.completed_commit_times(table)
    drop = [c for c in oracle.snapshot_rows(table)[0] if c not in DATA_SCHEMA.names]
    assert oracle.snapshot_rows(table, drop=drop) == oracle.rows_of(lines[-1]["rows"])


def test_datagen_refuses_an_existing_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datagen", str(tmp_path / "t"), "--commits", "1", "--engine", "local"]) == 0
    assert main(["datagen", str(tmp_path / "t"), "--commits", "1"]) == 64
    assert "already holds a Hudi table" in capsys.readouterr().err


def test_datagen_refuses_ratios_above_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datagen", str(tmp_path / "t"), "--update-ratio", "0.8", "--delete-ratio", "0.5"]) == 64
    assert "must not exceed 1" in capsys.readouterr().err


def test_datagen_writes_a_metadata_table_for_version_8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "t")
    args = ["--table-version", "8", "--metadata-table", "--commits", "3", "--engine", "local"]
    assert main(["datagen", path, *args]) == 0
    assert main(["inspect", path, "--check-metadata"]) == 0
    assert "in sync" in capsys.readouterr().out
    assert main(["datagen", str(tmp_path / "u"), "--table-version", "6", "--metadata-table"]) == 64
    assert "--metadata-table needs --table-version 8" in capsys.readouterr().err


JVM_CONSOLE_LINES = ("Using incubator modules", "Setting default log level", "WARN NativeCodeLoader")


@pytest.mark.spark
def test_datagen_on_spark_keeps_the_jvm_console_lines_off_the_terminal(tmp_path: Path) -> None:
    """The JVM writes to the process's file descriptors 1 and 2 itself (the ``java`` launcher's
    warnings, Spark's log4j console): run as a user does, in a process of its own, and read
    what reached its stdout and stderr."""
    if shutil.which("java") is None:
        pytest.skip("no JDK on PATH: Spark tests need Java 17+")
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    shown = subprocess.run(
        [sys.executable, "-m", "maintainer.cli", "datagen", str(tmp_path / "t"), "--commits", "2",
         "--rows-per-commit", "10", "--engine", "spark"],
        capture_output=True, text=True, timeout=600, check=False, env=env,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    terminal = shown.stdout + shown.stderr
    assert [line for line in JVM_CONSOLE_LINES if line in terminal] == []
    log = tmp_path / "tmp" / f"maintainer-{os.getuid()}" / "spark.log"
    assert f"its console output: {log}" in shown.stdout.replace("\n", "")
    assert "Setting default log level" in log.read_text()  # kept, where the terminal said
