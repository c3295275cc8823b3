"""The table-version-6 archived timeline: ``.hoodie/archived/.commits_.archive.<N>_<token>``.

Each file is a Hudi log file of AVRO_DATA blocks (header SCHEMA only, the
``HoodieArchivedMetaEntry`` schema; ``hoodie.commits.archival.batch`` = 10 records per block).
Every archival run writes a new file version (object stores cannot append), written whole and
read back before any instant file is deleted.
"""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.errors import CorruptFileError
from maintainer.hudi.file_groups.filenames import DEFAULT_WRITE_TOKEN, LogFileName
from maintainer.hudi.logformat import (
    BlockMetadata,
    BlockType,
    HeaderKey,
    block_records,
    encode_avro_content,
    read_log_file,
)
from maintainer.hudi.logformat.binary import frame_block
from maintainer.hudi.payloads import ArchivedMetaEntry, schema_text
from maintainer.storage import Storage

ARCHIVE_FILE_ID = "commits"
ARCHIVE_SUFFIX = "archive"
BATCH_SIZE = 10

EntryKey = tuple[str | None, str | None, str | None]


def entry_key(entry: ArchivedMetaEntry) -> EntryKey:
    return (entry.commit_time, entry.action_type, entry.action_state)


def archive_files(storage: Storage, directory: str) -> list[tuple[int, str]]:
    """(version, path) of every archive log file, oldest version first."""
    found = []
    for info in storage.list_dir(directory):
        parsed = LogFileName.parse(info.name)
        if parsed is not None and parsed.suffix == ARCHIVE_SUFFIX and parsed.file_id == ARCHIVE_FILE_ID:
            found.append((parsed.version, info.path))
    return sorted(found)


def read_archive_file(storage: Storage, path: str) -> list[ArchivedMetaEntry]:
    """The records of one archive file (corrupt blocks, e.g. a write cut short, are skipped)."""
    entries = []
    for block in read_log_file(storage, path):
        if block.is_corrupt or block.block_type is not BlockType.AVRO_DATA:
            continue
        entries += [ArchivedMetaEntry.from_record(r) for r in block_records(block)]
    return entries


def latest_archived_keys(storage: Storage, directory: str) -> set[EntryKey]:
    """Keys of the records in the newest archive file (what an interrupted run wrote)."""
    files = archive_files(storage, directory)
    return {entry_key(e) for e in read_archive_file(storage, files[-1][1])} if files else set()


def encode_archive_blocks(entries: Sequence[ArchivedMetaEntry]) -> bytes:
    schema = schema_text(ArchivedMetaEntry.SCHEMA)
    header = BlockMetadata(((HeaderKey.SCHEMA, schema),))
    blocks = []
    for start in range(0, len(entries), BATCH_SIZE):
        records = [e.to_record() for e in entries[start : start + BATCH_SIZE]]
        blocks.append(frame_block(BlockType.AVRO_DATA, header, encode_avro_content(records, schema)))
    return b"".join(blocks)


def write_archive_file(storage: Storage, directory: str, entries: Sequence[ArchivedMetaEntry]) -> str:
    """Write ``entries`` into a new archive file version; returns its path once read back whole."""
    files = archive_files(storage, directory)
    version = (files[-1][0] if files else 0) + 1
    name = LogFileName(ARCHIVE_FILE_ID, "", version, DEFAULT_WRITE_TOKEN, ARCHIVE_SUFFIX).name
    path = f"{directory}/{name}"
    storage.write_if_absent(path, encode_archive_blocks(entries))
    written = [entry_key(e) for e in read_archive_file(storage, path)]
    if written != [entry_key(e) for e in entries]:
        raise CorruptFileError(
            f"the archive file does not read back the {len(entries)} records written",
            where=storage.uri(path),
            hint="nothing was deleted from the active timeline; check the storage and run again",
        )
    return path
