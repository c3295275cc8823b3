"""Test helper: the records a fixture's metadata table received at one instant, read straight
from the HFILE_DATA blocks of its log files (key, raw value bytes, block schema)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from maintainer.hudi.hfile import read_hfile
from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.records import MetadataRecord, decode_value


@dataclass(frozen=True)
class StoredCell:
    key: str
    value: bytes
    schema_json: str


def cells_at(table: Path, instant: str, partition: str) -> dict[str, StoredCell]:
    """Key -> cell of every record the metadata deltacommit ``instant`` wrote to ``partition``."""
    cells: dict[str, StoredCell] = {}
    folder = table / ".hoodie" / "metadata" / partition
    for log in sorted(folder.glob(".*.log.*")):
        for block in read_log_blocks(log.read_bytes(), str(log)):
            if block.instant_time != instant or block.block_type is not BlockType.HFILE_DATA:
                continue
            assert block.schema_json is not None
            for cell in read_hfile(block.content, str(log)).cells:
                key = cell.key.decode()
                assert key not in cells, f"{key} written twice at {instant}"
                cells[key] = StoredCell(key, cell.value, block.schema_json)
    return cells


def all_cells(table: Path, partition: str, key: str) -> list[MetadataRecord]:
    """Every version of the record ``key`` in the log files of ``partition``, decoded."""
    found: list[MetadataRecord] = []
    folder = table / ".hoodie" / "metadata" / partition
    for log in sorted(folder.glob(".*.log.*")):
        for block in read_log_blocks(log.read_bytes(), str(log)):
            if block.block_type is not BlockType.HFILE_DATA or block.schema_json is None:
                continue
            for cell in read_hfile(block.content, str(log)).cells:
                if cell.key.decode() == key:
                    found.append(decode_value(cell.value, block.schema_json, str(log)))
    return found
