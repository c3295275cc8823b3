"""The integrity check planning and apply share (tables laid out by hand in tmp_path)."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.hudi import payloads
from maintainer.hudi.file_groups.integrity import (
    CommittedSize,
    CorruptTableError,
    committed_sizes,
    footer_findings,
    inspect_table,
    log_block_findings,
    parquet_footer_problem,
    size_findings,
    verify_table,
)
from maintainer.hudi.logformat.writer import rollback_command_block
from maintainer.hudi.payloads.commit_sizes import decode_committed_files
from maintainer.hudi.payloads.write_stat import WriteStat
from maintainer.hudi.table.snapshot import load_snapshot
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage
from maintainer.storage.listing import FileInfo
from tests.unit.hudi.table.test_snapshot import properties, touch

T1, T2, T3 = "20240101000001000", "20240101000002000", "20240101000003000"
BASE = f"region=eu/f1-0_0-1-1_{T1}.parquet"
LOG = f"region=eu/.f1-0_{T1}.log.1_0-2-2"


def parquet_bytes() -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": [1, 2, 3]}), sink)
    return sink.getvalue()


def commit_json(*stats: WriteStat) -> bytes:
    by_partition: dict[str, tuple[WriteStat, ...]] = {}
    for stat in stats:
        by_partition[stat.partition_path or ""] = (*by_partition.get(stat.partition_path or "", ()), stat)
    metadata = payloads.CommitMetadata(partition_to_write_stats=by_partition, operation_type="UPSERT")
    return payloads.encode_commit_metadata_json(metadata)


def stat(path: str, size: int) -> WriteStat:
    return WriteStat(file_id="f1-0", path=path, partition_path="region=eu", file_size_in_bytes=size)


def mor_table(root: Path, base: bytes, log: bytes, base_stat: int, log_stats: tuple[int, ...]) -> Storage:
    """A v6 table: base file written at T1, its log appended by T2 (and T3)."""
    touch(root, ".hoodie/hoodie.properties", properties())
    touch(root, "region=eu/.hoodie_partition_metadata", b"commitTime=1")
    touch(root, BASE, base)
    touch(root, LOG, log)
    touch(root, f".hoodie/{T1}.deltacommit", commit_json(stat(BASE, base_stat)))
    for instant, size in zip((T2, T3), log_stats, strict=False):
        touch(root, f".hoodie/{instant}.deltacommit", commit_json(stat(LOG, size)))
    return Storage(str(root))


def test_an_intact_table_has_no_findings(tmp_path: Path) -> None:
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 300, len(base), (200, 300))
    assert inspect_table(storage, load_snapshot(storage)).findings == []
    assert open_table(str(tmp_path)).snapshot.timeline.completed_commits()


def test_bytes_beyond_the_committed_length_of_a_log_are_a_crashed_append(tmp_path: Path) -> None:
    """A failed append leaves bytes after the last committed one: Hudi skips them, so do we."""
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 350, len(base), (200, 300))
    assert inspect_table(storage, load_snapshot(storage)).findings == []


def test_a_log_shorter_than_its_last_committed_append_is_damage(tmp_path: Path) -> None:
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 250, len(base), (200, 300))
    with pytest.raises(CorruptTableError) as info:
        verify_table(storage, load_snapshot(storage))
    (finding,) = info.value.findings
    assert finding.path == LOG
    assert f"log file is 250 bytes, but deltacommit {T3} committed it at 300 bytes" in finding.problem
    assert f"roll back deltacommit {T3}" in finding.hint and "restore the file" in finding.hint
    assert LOG in str(info.value) and "does not change a damaged table" in str(info.value)


@pytest.mark.parametrize("size", [0, 10])
def test_a_base_file_of_another_size_than_committed_is_damage(tmp_path: Path, size: int) -> None:
    base = parquet_bytes()
    storage = mor_table(tmp_path, base[:size], b"x" * 300, len(base), (300,))
    (finding,) = inspect_table(storage, load_snapshot(storage)).findings
    assert finding.path == BASE
    assert f"base file is {size} bytes, but commit {T1} recorded {len(base)} bytes" in finding.problem


def test_a_truncated_completed_commit_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 300, len(base), (300,))
    commit = tmp_path / ".hoodie" / f"{T2}.deltacommit"
    commit.write_bytes(commit.read_bytes()[:40])
    (finding,) = inspect_table(storage, load_snapshot(storage)).findings
    assert finding.path == f".hoodie/{T2}.deltacommit"
    assert f"the deltacommit instant {T2} does not decode" in finding.problem
    with pytest.raises(CorruptTableError, match=f"{T2}.deltacommit"):
        open_table(str(tmp_path))


def test_a_garbage_pending_clean_plan_is_a_finding(tmp_path: Path) -> None:
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 300, len(base), (300,))
    touch(tmp_path, f".hoodie/{T3}.clean.requested", b"Obj\x01garbage")
    (finding,) = inspect_table(storage, load_snapshot(storage)).findings
    assert finding.path == f".hoodie/{T3}.clean.requested"


def test_a_properties_file_read_from_its_backup_is_no_finding(tmp_path: Path) -> None:
    """An update cut short: Hudi reads the backup, and apply recovers the file first."""
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 300, len(base), (300,))
    good = (tmp_path / ".hoodie" / "hoodie.properties").read_bytes()
    touch(tmp_path, ".hoodie/hoodie.properties.backup", good)
    touch(tmp_path, ".hoodie/hoodie.properties", good[: good.index(b"hoodie.table.partition")])
    snapshot = load_snapshot(storage)
    assert snapshot.config.partition_fields == ("region",)  # read from the backup, as Hudi does
    assert snapshot.config.properties_problem is not None
    assert "checksum is missing" in snapshot.config.properties_problem
    assert inspect_table(storage, snapshot).findings == []
    assert (tmp_path / ".hoodie" / "hoodie.properties.backup").read_bytes() == good  # read, not written


def test_committed_sizes_keep_the_last_append_and_skip_stats_without_size() -> None:
    commits = {
        T2: decode_committed_files(commit_json(stat(LOG, 200), stat(BASE, 0)), "t2"),
        T3: decode_committed_files(commit_json(stat(LOG, 300)), "t3"),
    }
    assert committed_sizes(commits) == {LOG: CommittedSize(LOG, 300, T3, is_log=True)}


def test_files_not_listed_are_not_judged() -> None:
    committed = {BASE: CommittedSize(BASE, 100, T1, is_log=False)}
    assert size_findings({"region=us": ()}, committed) == []
    assert size_findings({"region=eu": ()}, committed) == []  # cleaned: gone is not damaged
    listed = {"region=eu": (FileInfo(BASE, 99, False),)}
    assert [f.path for f in size_findings(listed, committed)] == [BASE]


def test_parquet_footer_problems() -> None:
    good = parquet_bytes()
    assert parquet_footer_problem(good[:4], good[-8:], len(good)) is None
    assert "too small" in (parquet_footer_problem(b"", b"", 0) or "")
    assert "start with" in (parquet_footer_problem(b"XXXX", good[-8:], len(good)) or "")
    assert "end with" in (parquet_footer_problem(good[:4], bytes(8), len(good)) or "")
    huge = (len(good)).to_bytes(4, "little") + b"PAR1"
    assert "does not fit" in (parquet_footer_problem(good[:4], huge, len(good)) or "")


def test_footer_findings_read_only_the_parquet_files_asked(tmp_path: Path) -> None:
    good = parquet_bytes()
    touch(tmp_path, "p/good.parquet", good)
    touch(tmp_path, "p/cut.parquet", good[: len(good) // 2])
    touch(tmp_path, "p/empty.parquet", b"")
    touch(tmp_path, "p/.log.1_0-1-1", b"")
    storage = Storage(str(tmp_path))
    found = footer_findings(storage, ["p/good.parquet", "p/cut.parquet", "p/empty.parquet", "p/.log.1_0-1-1"])
    assert [(f.path, f.problem.split(" ", 2)[2][:20]) for f in found] == [
        ("p/cut.parquet", "does not end with th"),
        ("p/empty.parquet", "is 0 bytes, too smal"),
    ]


def test_a_corrupt_block_inside_the_committed_length_is_damage_beyond_it_a_crashed_append(
    tmp_path: Path,
) -> None:
    """Two committed blocks (the second appended by T3), then a crashed append: tolerated. The
    same file with garbage inside the second block: damage, naming the offset and T3."""
    first, second = rollback_command_block(T2, T1), rollback_command_block(T3, T1)
    committed = {LOG: CommittedSize(LOG, len(first) + len(second), T3, is_log=True)}
    touch(tmp_path, LOG, first + second + b"#HUDI#\x00\x00cut")
    storage = Storage(str(tmp_path))
    assert log_block_findings(storage, [LOG], committed) == []

    touch(tmp_path, LOG, first + b"garbage!" + second[8:])
    (finding,) = log_block_findings(storage, [LOG, f"region=eu/.other_{T1}.log.1_0-1-1"], committed)
    assert finding.path == LOG
    # as Hudi's reader, the first block is corrupt already: no magic follows it
    assert "corrupt log block at byte 0 (no magic right after the block)" in finding.problem
    assert f"inside the {len(first) + len(second)} bytes deltacommit {T3} committed" in finding.problem
    assert f"roll back deltacommit {T3}" in finding.hint


def test_every_state_file_of_a_completed_instant_is_decoded_not_those_of_a_pending_write(
    tmp_path: Path,
) -> None:
    """Archival moves the requested and inflight files with the completed one, so it reads them;
    a failed write's inflight file is left to its rollback (a crashed writer may have cut it)."""
    base = parquet_bytes()
    storage = mor_table(tmp_path, base, b"x" * 300, len(base), (300,))
    touch(tmp_path, f".hoodie/{T2}.deltacommit.inflight", b'{"partitionToWriteStats": {')
    touch(tmp_path, f".hoodie/{T3}.deltacommit.inflight", b'{"partitionToWriteStats": {')
    (finding,) = inspect_table(storage, load_snapshot(storage)).findings
    assert finding.path == f".hoodie/{T2}.deltacommit.inflight"
