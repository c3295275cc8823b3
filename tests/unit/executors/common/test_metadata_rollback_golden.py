"""The metadata rollback against the one Hudi wrote in a fixture (v9, non-partitioned, MOR):
the metadata table is put back as it was before (the rolled-back deltacommit and its log files
restored, the metadata rollback removed) and our rollback of it plans the same deletions with
the data rollback's instant time, and leaves the metadata timeline as Hudi left it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.common.metadata_sync import metadata_rollback, rollback_in_metadata_table
from maintainer.hudi.metadata.commit import open_for_sync
from maintainer.hudi.payloads import decode_rollback_plan
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
NAME = "sample_table_mor_avro_v9_nonpartitioned_rollback"
TARGET = "20260403184242950"
ROLLBACK = "20260403184259077"


def deletions(plan_requests: object) -> set[tuple[str, str]]:
    found = set()
    for request in plan_requests or ():  # type: ignore[attr-defined]
        for path in request.files_to_be_deleted:
            found.add((request.partition_path, path.rsplit("/", 1)[-1]))
    return found


def before_the_rollback(path: Path) -> tuple[set[tuple[str, str]], list[str]]:
    """Undo Hudi's metadata rollback: its plan's files and the deltacommit come back."""
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    requested = timeline / f"{ROLLBACK}.rollback.requested"
    plan = decode_rollback_plan(requested.read_bytes(), str(requested))
    assert plan is not None
    expected = deletions(plan.rollback_requests)
    for partition, name in expected:
        (path / ".hoodie" / "metadata" / partition / name).write_bytes(b"")
    for later in [p for p in timeline.iterdir() if p.is_file() and p.name[:17] > ROLLBACK]:
        later.unlink()  # the metadata table's next deltacommit came after the rollback
    after = sorted(p.name for p in timeline.iterdir() if p.is_file())
    for state in timeline.glob(f"{ROLLBACK}*"):
        state.unlink()
    for name in ("deltacommit.requested", "deltacommit.inflight"):
        (timeline / f"{TARGET}.{name}").write_bytes(b"")
    (timeline / f"{TARGET}_20260403184243000.deltacommit").write_bytes(b"")
    return expected, after


def test_the_metadata_rollback_deletes_what_hudis_deleted(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    path = fixture_copy(NAME).path
    expected, hudi_timeline = before_the_rollback(path)
    storage = Storage(str(path))
    mdt = open_for_sync(storage)
    assert mdt is not None
    rollback = metadata_rollback(mdt, TARGET, ROLLBACK)
    assert rollback is not None and rollback.instant_time == ROLLBACK
    assert deletions(rollback.plan.rollback_requests) == expected
    done = rollback_in_metadata_table(storage, TARGET, ROLLBACK)
    assert done is not None and done.rollback_instant.timestamp == ROLLBACK
    assert done.metadata.total_files_deleted == len(expected) == 5
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    ours = sorted(p.name for p in timeline.iterdir() if p.is_file())
    strip = [n.split("_")[0] if n.endswith(".rollback") else n for n in ours]
    assert strip == [n.split("_")[0] if n.endswith(".rollback") else n for n in hudi_timeline]
    for partition, name in expected:
        assert not (path / ".hoodie" / "metadata" / partition / name).exists()
