"""``maintainer datagen`` through the CLI: a real table, its expected rows, and refusals."""

from __future__ import annotations

import json
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
