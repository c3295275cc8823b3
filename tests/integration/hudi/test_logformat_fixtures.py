"""The log format on every log file of the real Hudi fixtures (data tables and metadata tables).

* the block types per table are those FIXTURES.md lists, each with its headers;
* every block re-encodes from its fields to the identical bytes (header order kept), and the
  Avro and delete contents re-encode from the decoded records to the identical bytes;
* the records of every data block, and the keys of every delete block, agree with what the
  oracle (``hudi``'s file-group reader over the file group's base file and logs) returns.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.logformat import (
    BlockType,
    LogBlock,
    block_deletes,
    block_records,
    block_rollback,
    block_table,
    effective_blocks,
    encode_avro_content,
    encode_block,
    encode_delete_content,
    read_log_blocks,
    rollback_command_block,
)
from tests.support.fixtures import FixtureTable, fixture_names, fixtures_dir
from tests.support.oracle import completed_commit_times

pytestmark = pytest.mark.fixtures

ALL = fixture_names()
FIXTURE_BLOCK_NAMES = {
    "avro_data": BlockType.AVRO_DATA,
    "delete": BlockType.DELETE,
    "parquet_data": BlockType.PARQUET_DATA,
    "command(rollback)": BlockType.COMMAND,
}

GetTable = Callable[[str], FixtureTable]


def expected_block_types() -> dict[str, Counter[BlockType]]:
    """Block types per fixture, from the 'log blocks' column of FIXTURES.md."""
    directory = fixtures_dir()
    assert directory is not None
    expected: dict[str, Counter[BlockType]] = {}
    for line in (directory / "FIXTURES.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 13 or cells[0] not in ALL:
            continue
        counts: Counter[BlockType] = Counter()
        for item in filter(None, (part.strip() for part in cells[11].split(","))):
            if item != "-":
                name, count = item.split("×")
                counts[FIXTURE_BLOCK_NAMES[name]] = int(count)
        expected[cells[0]] = counts
    return expected


def log_files(root: Path, metadata_table: bool) -> list[Path]:
    """Log files of the data table (outside .hoodie) or of its metadata table."""
    start = root / ".hoodie" / "metadata" if metadata_table else root
    found = []
    for directory, dirs, files in os.walk(start):
        if not metadata_table:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(directory) / name for name in files if name.startswith(".") and ".log." in name]
    return sorted(found)


def blocks_of(path: Path) -> list[LogBlock]:
    return read_log_blocks(path.read_bytes(), str(path))


@pytest.mark.parametrize("name", ALL)
def test_block_types_and_headers_are_those_fixtures_md_lists(name: str, fixture_table: GetTable) -> None:
    root = fixture_table(name).path
    found: Counter[BlockType] = Counter()
    for path in log_files(root, metadata_table=False):
        for block in blocks_of(path):
            assert not block.is_corrupt, block.corrupt_reason
            assert block.format_version == 1
            assert block.instant_time is not None and re.fullmatch(r"\d{17}", block.instant_time)
            if block.block_type is not BlockType.COMMAND:
                assert block.schema_json is not None and block.schema_json.startswith('{"type":"record"')
            found[block.block_type] += 1
    assert found == expected_block_types()[name]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("metadata_table", [False, True], ids=["data", "mdt"])
def test_every_block_reencodes_to_identical_bytes(
    name: str, metadata_table: bool, fixture_table: GetTable
) -> None:
    for path in log_files(fixture_table(name).path, metadata_table):
        data = path.read_bytes()
        blocks = read_log_blocks(data, str(path))
        assert not any(block.is_corrupt for block in blocks), path
        assert b"".join(encode_block(block) for block in blocks) == data
        for block in blocks:
            assert reencoded_content(block) == block.content, block.location
            if block.block_type is BlockType.AVRO_DATA:
                assert block_table(block).equals(block_table(block, use_polars=False)), block.location


def reencoded_content(block: LogBlock) -> bytes:
    """The block's content rebuilt from its decoded records (raw bytes where nothing decodes)."""
    if block.block_type in (BlockType.AVRO_DATA, BlockType.CDC_DATA):
        assert block.schema_json is not None
        return encode_avro_content(block_records(block), block.schema_json)
    if block.block_type is BlockType.DELETE:
        return encode_delete_content(block_deletes(block))
    if block.block_type is BlockType.COMMAND:
        command = block_rollback(block)
        raw = rollback_command_block(command.instant_time, command.target_instant_time)
        assert raw == encode_block(block)  # the writer uses the header order Hudi wrote here
    return block.content


MOR_WITH_LOGS = [name for name, counts in expected_block_types().items() if counts] if ALL else []


@pytest.mark.parametrize("name", MOR_WITH_LOGS)
def test_log_records_agree_with_the_oracle(name: str, fixture_table: GetTable) -> None:
    root = fixture_table(name).path
    committed = set(completed_commit_times(root))
    compared = 0
    for group in file_groups(root):
        for upto in range(1, len(group.logs) + 1):
            compared += check_prefix_against_oracle(root, group, upto, committed)
    assert compared > 0


class FileGroupLogs:
    def __init__(self, directory: Path, file_id: str) -> None:
        self.directory = directory
        self.file_id = file_id
        self.logs: list[Path] = []
        self.bases: list[BaseFileName] = []


def file_groups(root: Path) -> list[FileGroupLogs]:
    groups: dict[tuple[Path, str], FileGroupLogs] = {}
    for path in log_files(root, metadata_table=False):
        log = LogFileName.parse(path.name)
        assert log is not None
        group = groups.setdefault((path.parent, log.file_id), FileGroupLogs(path.parent, log.file_id))
        group.logs.append(path)
    for group in groups.values():
        group.logs.sort(key=lambda p: LogFileName.parse(p.name).sort_key())  # type: ignore[union-attr]
        names = (BaseFileName.parse(p.name) for p in group.directory.iterdir())
        group.bases = sorted(
            (b for b in names if b and b.file_id == group.file_id), key=lambda b: b.instant_time
        )
    return list(groups.values())


def check_prefix_against_oracle(root: Path, group: FileGroupLogs, upto: int, committed: set[str]) -> int:
    """The last log of ``group.logs[:upto]``: its surviving blocks agree with hudi's merged read.
    Returns how many records and deleted keys were compared."""
    from hudi import HudiFileGroupReader

    logs = group.logs[:upto]
    first_instant = LogFileName.parse(logs[0].name).instant_time  # type: ignore[union-attr]
    base = [b for b in group.bases if b.instant_time <= first_instant][-1]
    all_blocks = [block for log in logs for block in blocks_of(log)]
    surviving = [b for b in effective_blocks(all_blocks, committed.__contains__) if b.where == str(logs[-1])]
    relative = [str(p.relative_to(root)) for p in logs]
    base_path = str((group.directory / base.name).relative_to(root))
    merged = HudiFileGroupReader(str(root)).read_file_slice_from_paths(base_path, relative).to_pylist()
    by_key = {row.get("_hoodie_record_key"): row for row in merged}
    compared = 0
    for block in surviving:
        if block.block_type is BlockType.DELETE:
            deleted = {d.record_key for d in block_deletes(block)}
            assert not deleted & by_key.keys(), block.location
            compared += len(deleted)
        elif block.is_data:
            for record in data_rows(block):
                assert by_key.get(record["_hoodie_record_key"]) == record, block.location
                compared += 1
    return compared


def data_rows(block: LogBlock) -> list[dict[str, Any]]:
    if block.block_type is BlockType.AVRO_DATA:
        return block_records(block)
    rows: list[dict[str, Any]] = block_table(block).to_pylist()
    return rows


def test_damaged_real_log_files_give_corrupt_blocks_and_reading_continues(fixture_table: GetTable) -> None:
    root = fixture_table("sample_table_mor_parquet_v6_nonpartitioned_rollback").path
    first, command, third = (p.read_bytes() for p in log_files(root, metadata_table=False))
    damaged = first + b"\x00garbage" * 10 + command + third[: len(third) // 2]
    blocks = read_log_blocks(damaged, "damaged")
    assert [b.block_type for b in blocks] == [BlockType.CORRUPT, BlockType.COMMAND, BlockType.CORRUPT]
    assert (blocks[0].offset, blocks[0].size) == (0, len(first) + 80)
    assert (blocks[2].offset, blocks[2].end) == (len(first) + 80 + len(command), len(damaged))
    assert block_rollback(blocks[1]).target_instant_time == "20250126040826878"
