"""Test helper: hand edits of a metadata table's records, as a user (or a buggy writer) might
make them. A log file's HFILE_DATA block is decoded, its records changed, and the block written
again in place (same instant and schema), so the metadata table still reads: only the edited
values disagree with the data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from maintainer.hudi.hfile import read_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.logformat.writer import append_blocks
from maintainer.hudi.metadata.records import MetadataRecord, decode_value
from maintainer.hudi.metadata.writer import hfile_block

Edit = Callable[[str, MetadataRecord], MetadataRecord | None]
"""(key, record) -> the record to write instead (None: leave the record out)."""


def rewrite_log_records(log: Path, edit: Edit) -> list[str]:
    """Apply ``edit`` to every record of the log file's single HFILE_DATA block; returns the keys
    whose record changed or was left out."""
    blocks = read_log_blocks(log.read_bytes(), str(log))
    assert len(blocks) == 1 and blocks[0].block_type is BlockType.HFILE_DATA, (
        f"{log}: not one HFILE_DATA block"
    )
    block = blocks[0]
    assert block.schema_json is not None and block.instant_time is not None
    hfile = read_hfile(block.content, str(log))
    records: list[tuple[str, MetadataRecord]] = []
    changed: list[str] = []
    for cell in hfile.cells:
        key = cell.key.decode()
        record = decode_value(cell.value, block.schema_json, str(log))
        edited = edit(key, dict(record))
        if edited != record:
            changed.append(key)
        if edited is not None:
            records.append((key, edited))
    created = int.from_bytes(dict(hfile.file_info).get(CREATE_TIME_TS, bytes(8)), "big")
    log.write_bytes(hfile_block(records, block.instant_time, block.schema_json, hfile.style, created))
    return changed


def newest_log_with(folder: Path, wanted: Callable[[str, MetadataRecord], bool]) -> Path:
    """The newest log file of a metadata partition folder holding a record ``wanted`` accepts."""
    logs = sorted((p for p in folder.iterdir() if ".log." in p.name), key=lambda p: p.name.split("_")[1])
    for log in reversed(logs):
        for block in read_log_blocks(log.read_bytes(), str(log)):
            if block.block_type is not BlockType.HFILE_DATA or block.schema_json is None:
                continue
            for cell in read_hfile(block.content, str(log)).cells:
                if wanted(cell.key.decode(), decode_value(cell.value, block.schema_json, str(log))):
                    return log
    raise AssertionError(f"no log file of {folder} holds a wanted record")


def append_records(folder: Path, file_id: str, records: list[tuple[str, MetadataRecord]]) -> Path:
    """Append an HFILE_DATA block of ``records`` to the log file of file group ``file_id``'s
    latest slice (one whose name carries its base file's instant), at that instant and with the
    base file's record schema: the records then override the base file's, as a later write's
    would. Returns the log file."""
    base = max(folder.glob(f"{file_id}_*.hfile"), key=lambda p: p.stem.rsplit("_", 1)[1])
    instant = base.stem.rsplit("_", 1)[1]
    log = next(folder.glob(f".{file_id}_{instant}.log.*"))
    hfile = read_hfile(base.read_bytes(), str(base))
    schema = dict(hfile.file_info)[b"schema"].decode()
    created = int.from_bytes(dict(hfile.file_info).get(CREATE_TIME_TS, bytes(8)), "big")
    block = hfile_block(records, instant, schema, hfile.style, created)
    log.write_bytes(append_blocks(log.read_bytes(), [block], str(log)))
    return log


def base_records(folder: Path, file_id: str) -> list[tuple[str, MetadataRecord]]:
    """The records of file group ``file_id``'s newest base HFile."""
    base = max(folder.glob(f"{file_id}_*.hfile"), key=lambda p: p.stem.rsplit("_", 1)[1])
    hfile = read_hfile(base.read_bytes(), str(base))
    schema = dict(hfile.file_info)[b"schema"].decode()
    return [(c.key.decode(), decode_value(c.value, schema, str(base))) for c in hfile.cells]
