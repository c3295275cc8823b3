"""Test helper: hand edits of a metadata table's records, as a user (or a buggy writer) might
make them. A log file's HFILE_DATA block is decoded, its records changed, and the block written
again in place (same instant and schema), so the metadata table still reads: only the edited
values disagree with the data."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from maintainer.hudi.hfile import HFileCell, read_hfile, write_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.logformat.writer import append_blocks
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.records import MetadataRecord, decode_value, parsed_schema
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates.build import bloom_filter_record
from maintainer.hudi.metadata.updates.commit import footer_bloom_filter
from maintainer.hudi.metadata.updates.indexes import BLOOM_FILTERS, DEFAULT_BLOOM_FILTER_TYPE
from maintainer.hudi.metadata.updates.parquet_stats import read_parquet_footer
from maintainer.hudi.metadata.writer import encode_value, hfile_block
from maintainer.hudi.payloads import CommitMetadata, WriteStat
from maintainer.hudi.payloads.decode import encode_avro
from maintainer.hudi.table.state import open_table

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


BLOOM_INIT = "00000000000000009"
"""The bootstrap-style instant the added ``bloom_filters`` partition is initialized at (Hudi
initializes each metadata partition at its own ``0000000000000000N`` deltacommit)."""
BLOOM_FILE_ID = "bloom-filters-0000-0"


def add_bloom_filters_partition(table: Path, edit: Edit | None = None) -> tuple[Path, list[str]]:
    """Initialize a ``bloom_filters`` partition in the metadata table of ``table`` as Hudi's
    indexer would: one file group whose base HFile holds the footer bloom filter of every listed
    Parquet base file (the writer's own records, ``edit`` applied: a wrong filter written at
    initialization), committed by a completed metadata deltacommit, and the partition added to
    ``hoodie.table.metadata.partitions``. No fixture has this partition and datagen writes
    ``files`` only. Returns the HFile and the data files (``partition/name``) indexed."""
    data = open_table(str(table), verify=False)
    mdt = open_metadata_table(data)
    assert mdt is not None
    records: list[tuple[str, MetadataRecord]] = []
    indexed: list[str] = []
    for partition, files in sorted(metadata_file_listing(mdt).items()):
        for name in sorted(f for f in files if f.endswith(".parquet")):
            path = f"{partition}/{name}" if partition else name
            footer = read_parquet_footer(data.storage, path)
            text = footer_bloom_filter(footer.metadata or {}, path)
            assert text is not None, f"{path}: no bloom filter in the footer"
            record = bloom_filter_record(partition, name, BLOOM_INIT, DEFAULT_BLOOM_FILTER_TYPE, text, False)
            records.append(record)
            indexed.append(path)
    if edit is not None:
        records = [(k, r) for k, r in ((k, edit(k, dict(r))) for k, r in records) if r is not None]
    storage, snapshot = mdt.storage, mdt.state.snapshot
    schemas = metadata_schemas(storage, snapshot.timeline)
    style = next(
        read_hfile(p.read_bytes(), str(p)).style for p in (table / ".hoodie/metadata").rglob("*.hfile")
    )
    folder = table / ".hoodie" / "metadata" / BLOOM_FILTERS
    folder.mkdir()
    shutil.copy(table / ".hoodie" / "metadata" / "files" / ".hoodie_partition_metadata", folder)
    name = f"{BLOOM_FILE_ID}_0-0-0_{BLOOM_INIT}.hfile"
    cells = sorted(
        (HFileCell(k.encode(), encode_value(r, parsed_schema(schemas.block_schema))) for k, r in records),
        key=lambda c: c.key,
    )
    content = write_hfile(cells, style=style, file_info={b"schema": schemas.block_schema.encode()})
    writer = TimelineWriter(storage, snapshot.config)
    inflight = writer.transition_to_inflight(
        writer.create_requested(Action.DELTA_COMMIT, b"", instant_time=BLOOM_INIT, mirrored=True)
    )
    (folder / name).write_bytes(content)
    stat = WriteStat(
        file_id=BLOOM_FILE_ID,
        path=f"{BLOOM_FILTERS}/{name}",
        prev_commit="null",
        partition_path=BLOOM_FILTERS,
        num_writes=len(cells),
        num_deletes=0,
        num_update_writes=0,
        num_inserts=len(cells),
        total_write_bytes=len(content),
        total_write_errors=0,
        file_size_in_bytes=len(content),
    )
    metadata = CommitMetadata(
        partition_to_write_stats={BLOOM_FILTERS: (stat,)},
        compacted=False,
        extra_metadata={"schema": schemas.commit_schema},
        version=None,
        operation_type="BULK_INSERT",
    )
    writer.complete(inflight, encode_avro(metadata))
    properties = table / ".hoodie" / "hoodie.properties"
    lines = properties.read_text(encoding="latin-1")
    key = "hoodie.table.metadata.partitions="
    assert key in lines
    properties.write_text(lines.replace(key, f"{key}{BLOOM_FILTERS},", 1), encoding="latin-1")
    return folder / name, indexed
