"""``maintainer inspect --records --as-of`` through the CLI: Hudi's three forms of a time read
the rows hudi reads at that time; anything else, and a time whose state the table no longer
holds (cleaned, archived, after a write still in flight), is refused with the reason (exit 64,
no rows)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.executors.archive.executor import run_archive
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.table.snapshot import load_config
from maintainer.hudi.table.state import open_table
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.storage import Storage
from tests.integration.plan.cleantables import make_table, write_completed_clean
from tests.support import oracle
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures

TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
SECOND_COMMIT = "20251220210123755"  # completed 2025-12-20 21:01:23.755
COW_V9 = "sample_table_cow_v9_txns_complex_nometa"


def records(capsys: pytest.CaptureFixture[str], root: Path, as_of: str) -> list[dict[str, Any]]:
    assert main(["inspect", str(root), "--records", "--as-of", as_of]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def refused(capsys: pytest.CaptureFixture[str], root: Path, as_of: str) -> str:
    assert main(["inspect", str(root), "--records", "--as-of", as_of]) == 64
    captured = capsys.readouterr()
    assert captured.out == "", "no rows"
    assert "Traceback" not in captured.err
    return captured.err


def fares(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["uuid"]: r["fare"] for r in rows}


@pytest.mark.parametrize(
    ("as_of", "hudi_as_of"),
    [
        ("2025-12-20 21:01:23", SECOND_COMMIT),  # the end of that second: the commit at .755 is in
        ("2025-12-20 21:01:23.755", SECOND_COMMIT),
        ("20251220210123", SECOND_COMMIT),  # a second-granularity instant: to .999, as Hudi
        ("2025-12-21", None),  # after every commit: the latest rows
    ],
)
def test_hudi_forms_of_a_time_read_the_rows_hudi_reads(
    as_of: str,
    hudi_as_of: str | None,
    fixture_table: Callable[[str], FixtureTable],
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = fixture_table(TRIPS_V8).path
    rows = records(capsys, root, as_of)
    assert rows, "the table had rows then"
    assert fares(rows) == fares(oracle.snapshot_rows(root, as_of=hudi_as_of))


@pytest.mark.parametrize("as_of", ["foo", "2025-12-20T21:01:23", "2025-13-40", "202512202101", "2025/12/20"])
def test_a_time_in_no_form_hudi_accepts_is_refused(
    as_of: str, fixture_table: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(capsys, fixture_table(TRIPS_V8).path, as_of)
    assert "not a time Hudi's time travel accepts" in err and "yyyy-MM-dd HH:mm:ss[.SSS]" in err


def test_a_time_before_the_earliest_commit_the_cleaner_retained_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_table(tmp_path, "COPY_ON_WRITE", 8, commits=6, partitions=1).path
    commits = oracle.completed_commit_times(path)
    write_completed_clean(path, ectr=commits[3])

    err = refused(capsys, Path(path), commits[1])
    assert "cleaner cleaned up" in err and commits[3] in err and "hint:" in err
    assert rows_by_key(records(capsys, Path(path), commits[3])) == rows_by_key(
        oracle.snapshot_rows(path, as_of=commits[3])
    )


def test_a_time_in_the_archived_timeline_is_refused(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy(COW_V9).path
    table = open_table(str(root))
    keep_time_elapsed = CompactionSpec.model_validate({"trigger": {"strategy": "time_elapsed"}})
    archive = plan_archive(
        load_archive_inputs(table, keep_time_elapsed), ArchiveSpec(keep_min_commits=2, keep_max_commits=4)
    )
    assert archive.commits
    run_archive(table.storage, table.snapshot.config, archive)
    archived = sorted(i.timestamp for i in archive.instants)
    first_active = oracle.completed_commit_times(root)[0]

    err = refused(capsys, root, archived[-1])
    assert "cleaned or archived" in err and first_active in err
    assert records(capsys, root, first_active), "the first active commit still reads"


def test_a_time_at_or_after_a_write_in_flight_is_refused(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    root = fixture_copy(TRIPS_V8).path
    storage = Storage(str(root))
    pending = TimelineWriter(storage, load_config(storage)).create_requested(Action.DELTA_COMMIT)

    err = refused(capsys, root, pending.timestamp)
    assert "first incomplete commit" in err and pending.timestamp in err
    expected = oracle.snapshot_rows(root, as_of=SECOND_COMMIT)
    assert fares(records(capsys, root, SECOND_COMMIT)) == fares(expected)


def rows_by_key(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["_hoodie_record_key"]: r for r in oracle.rows_of(rows)}


def test_after_a_clean_by_file_versions_a_time_before_the_first_retained_commit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clean that recorded no earliest commit to retain (Hudi's KEEP_LATEST_FILE_VERSIONS):
    Hudi then refuses a time before the active timeline's first completed commit."""
    path = make_table(tmp_path, "COPY_ON_WRITE", 8, commits=3, partitions=1).path
    first = oracle.completed_commit_times(path)[0]
    write_completed_clean(path, ectr="")

    err = refused(capsys, Path(path), "2000-01-01")
    assert "before the first commit the table retains" in err and first in err
    assert rows_by_key(records(capsys, Path(path), first)) == rows_by_key(
        oracle.snapshot_rows(path, as_of=first)
    )
