"""The lean commit decoder of the integrity check agrees with the full decoder on every commit
of every fixture table written by Hudi (JSON and Avro), and still refuses a cut file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.integrity import inspect_table
from maintainer.hudi.payloads.commit_sizes import decode_committed_files
from maintainer.hudi.table.snapshot import load_snapshot
from maintainer.storage import Storage
from tests.integration.hudi.test_payload_fixtures import instant_files
from tests.support.fixtures import fixture_names

COMMIT_SUFFIXES = (".commit", ".deltacommit", ".replacecommit")


def completed_commits(table: Path) -> list[Path]:
    return [p for p in instant_files(table) if p.name.endswith(COMMIT_SUFFIXES)]


def full_decode(data: bytes, where: str) -> list[tuple[str, int]]:
    metadata = payloads.decode_replace_commit_metadata(data, where)
    return [
        (stat.path, stat.file_size_in_bytes)
        for stats in (metadata.partition_to_write_stats or {}).values()
        for stat in stats
        if stat.path and stat.file_size_in_bytes is not None
    ]


@pytest.mark.fixtures
@pytest.mark.parametrize("name", fixture_names())
def test_committed_files_match_the_full_decoder(name: str, fixture_table: Any) -> None:
    commits = completed_commits(fixture_table(name).path)
    for path in commits:
        data = path.read_bytes()
        assert decode_committed_files(data, str(path)) == full_decode(data, str(path)), path
    assert commits or "empty" in name


@pytest.mark.fixtures
@pytest.mark.parametrize(
    "name", ["quickstart_trips_table_mor_avro_v6_trips_8i3d", "sample_table_cow_v9_txns_simple_meta"]
)
def test_a_cut_commit_is_refused_naming_it(name: str, fixture_table: Any) -> None:
    for path in completed_commits(fixture_table(name).path):
        data = path.read_bytes()
        if not data.strip():
            continue
        for cut in (len(data) // 2, len(data) - 1):
            with pytest.raises(CorruptFileError) as info:
                decode_committed_files(data[:cut], str(path))
            assert info.value.where == str(path)


@pytest.mark.fixtures
@pytest.mark.parametrize("name", fixture_names())
def test_every_table_written_by_hudi_is_intact(name: str, fixture_table: Any) -> None:
    """No false alarm: every instant file decodes, every data file has its committed size."""
    storage = Storage(str(fixture_table(name).path))
    snapshot = load_snapshot(storage)
    inspection = inspect_table(storage, snapshot)
    assert inspection.findings == [] and inspection.interrupted == []
    assert inspection.committed or "empty" in name
