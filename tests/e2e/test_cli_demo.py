"""``maintainer demo``: the whole story on generated tables, through the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.commands.demo_cmd import MARKER_FILE, prepare_directory
from maintainer.hudi.table.state import open_table
from tests.support import oracle


@pytest.mark.spark
def test_demo_creates_a_valid_project_and_real_hudi_tables(
    tmp_path: Path, spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "demo"
    assert main(["demo", str(directory)]) == 0
    out = capsys.readouterr().out
    assert "rows as generated" in out and "differ" not in out
    assert "OK trips_daily.clean" in out and "files deleted in 1 clean(s)" in out
    assert "within gates.max_compaction_bytes: this compaction reads" in out
    assert "reader daily_report (lag 0s): margin" in out
    assert '"status": "success"' in (directory / "target" / "run_results.json").read_text()
    assert main(["validate", "--project-dir", str(directory)]) == 0
    for name in ("trips", "trips_daily"):
        table = open_table(str(directory / "lake" / name))
        assert table.snapshot.timeline.completed_commits()
        assert oracle.snapshot_rows(directory / "lake" / name), "hudi reads the generated table"
    assert "OK trips.rollback" in out and "1 rollback(s) done" in out
    assert not open_table(str(directory / "lake" / "trips")).snapshot.timeline.pending_writes()


def test_demo_refuses_a_folder_it_did_not_create(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    assert main(["demo", str(tmp_path)]) == 64
    assert "is not empty" in capsys.readouterr().err
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_demo_replaces_an_earlier_demo_only_with_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier = tmp_path / "demo"
    earlier.mkdir()
    (earlier / MARKER_FILE).write_text("created by maintainer demo\n")
    (earlier / "stale.txt").write_text("old")
    assert main(["demo", str(earlier)]) == 64
    assert "--overwrite" in capsys.readouterr().err
    prepare_directory(earlier, overwrite=True)
    assert sorted(p.name for p in earlier.iterdir()) == [MARKER_FILE]
