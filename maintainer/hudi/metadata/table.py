"""Open a data table's metadata table (``.hoodie/metadata``) and read its merged records.

The metadata table is itself a merge-on-read Hudi table (table version 8 or 9, base files are
HFiles, log blocks are HFILE_DATA or DELETE blocks), so its timeline and file slices come from
the same code as any table's (:func:`maintainer.hudi.table.state.read_table_state`). A partition's
records are the merge, per file group, of the latest base HFile and the log blocks after it
whose instant is valid (:mod:`.instants`) and completed on the metadata table's own timeline.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.file_groups.filemodel import FileGroup, FileSlice, LogFile
from maintainer.hudi.hfile import HFileCell, read_hfile
from maintainer.hudi.hfile.reader import read_cells_with_prefixes, read_file_info
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.logformat.delete_block import block_deletes
from maintainer.hudi.logformat.model import BlockType, LogBlock
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.instants import valid_instant_times
from maintainer.hudi.metadata.partitions import MetadataPartition, metadata_partition
from maintainer.hudi.metadata.records import MetadataRecord, decode_value, merge_records
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.storage import Storage

MIN_TABLE_VERSION = 8
BASE_FILE_SCHEMA_KEY = b"schema"


@dataclass(frozen=True)
class MetadataTable:
    """A data table's metadata table as read at one moment."""

    storage: Storage
    """Storage rooted at ``<table>/.hoodie/metadata``."""
    state: TableState
    partitions: tuple[MetadataPartition, ...]
    """The completed partitions (``hoodie.table.metadata.partitions`` of the data table)."""
    inflight_partitions: tuple[str, ...]
    valid_instants: frozenset[str]
    data: TableState | None = field(default=None, compare=False, repr=False)
    """The data table as read to open this metadata table (its config and timeline; its
    listing only where the caller listed partitions)."""
    _read: dict[str, dict[str, MetadataRecord]] = field(default_factory=dict, compare=False, repr=False)
    """Partitions read so far (a metadata table is read at one moment; do not modify)."""

    def partition(self, name: str) -> MetadataPartition | None:
        return next((p for p in self.partitions if p.name == name), None)

    def file_groups(self, partition: str) -> list[FileGroup]:
        return self.state.view.file_groups(partition)

    @property
    def latest_compaction(self) -> Instant | None:
        return self.state.snapshot.timeline.last_completed(Action.COMPACTION, Action.COMMIT)

    @property
    def pending_instants(self) -> list[Instant]:
        return self.state.snapshot.timeline.pending()

    def read_partition(self, name: str) -> dict[str, MetadataRecord]:
        """Every live record of partition ``name``: key -> merged record (read once)."""
        if name not in self._read:
            records: dict[str, MetadataRecord] = {}
            for group in self.file_groups(name):
                records.update(self.read_file_group(group))
            self._read[name] = records
        return self._read[name]

    def read_file_group(
        self, group: FileGroup, prefixes: Sequence[str] | None = None
    ) -> dict[str, MetadataRecord]:
        """The live records of one file group; given ``prefixes``, only the keys starting with
        one of them, found through each HFile's index (the other data blocks are not read)."""
        wanted = None if prefixes is None else tuple(prefix.encode() for prefix in prefixes)
        slices = _slices_to_merge(group)
        merged: dict[str, MetadataRecord] = {}
        base = slices[0].base_file if slices else None
        if base is not None:
            for key, record in self._base_records(base.path, wanted):
                merged[key] = record
        for log in (log for s in slices for log in s.log_files):
            self._merge_log(log, merged, wanted)
        return merged

    def read_prefixes(self, name: str, prefixes: Collection[str]) -> dict[str, MetadataRecord]:
        """The live records of partition ``name`` whose keys start with one of ``prefixes``
        (Hudi's ``getRecordsByKeyPrefixes``), without decoding the rest of the partition."""
        if name in self._read:
            return {k: v for k, v in self._read[name].items() if k.startswith(tuple(prefixes))}
        ordered = sorted(set(prefixes))
        records: dict[str, MetadataRecord] = {}
        if ordered:
            for group in self.file_groups(name):
                records.update(self.read_file_group(group, ordered))
        return records

    def _base_records(
        self, path: str, wanted: tuple[bytes, ...] | None
    ) -> Iterator[tuple[str, MetadataRecord]]:
        return base_records(self.storage, path, wanted)

    def _merge_log(
        self, log: LogFile, merged: dict[str, MetadataRecord], wanted: tuple[bytes, ...] | None
    ) -> None:
        for block in self._readable_blocks(log):
            if block.block_type is BlockType.HFILE_DATA:
                _merge_hfile_block(block, merged, wanted)
            else:
                for deleted in block_deletes(block):
                    merged.pop(deleted.record_key or "", None)

    def verify_partition(self, name: str) -> None:
        """Read every block of the files partition ``name``'s records come from (the HFiles'
        blocks, checksums, compression and cell order; the log blocks' framing and deletes),
        without decoding the records' values (a tenth of the cost): damaged bytes raise a
        CorruptFileError naming the file, as reading the records would."""
        if name in self._read:
            return
        for group in self.file_groups(name):
            slices = _slices_to_merge(group)
            base = slices[0].base_file if slices else None
            if base is not None:
                where = self.storage.uri(base.path)
                _base_schema(read_hfile(self.storage.read_bytes(base.path), where).file_info, where)
            for log in (log for s in slices for log in s.log_files):
                for block in self._readable_blocks(log):
                    if block.block_type is BlockType.HFILE_DATA:
                        _block_schema(block)
                        read_hfile(block.content, block.location)
                    else:
                        block_deletes(block)

    def _readable_blocks(self, log: LogFile) -> Iterator[LogBlock]:
        """The blocks of ``log`` whose instant counts (HFILE_DATA or DELETE); a corrupt block,
        or one of another type, raises."""
        where = self.storage.uri(log.path)
        for block in read_log_blocks(self.storage.read_bytes(log.path), where):
            if block.is_corrupt:
                raise CorruptFileError(
                    f"corrupt metadata log block: {block.corrupt_reason}", where=block.location
                )
            if not self._is_readable(block):
                continue
            if block.block_type not in (BlockType.HFILE_DATA, BlockType.DELETE):
                raise CorruptFileError(
                    f"a {block.block_type.name} block in a metadata table log file (only HFILE_DATA "
                    "and DELETE blocks are written there)",
                    where=block.location,
                )
            yield block

    def _is_readable(self, block: LogBlock) -> bool:
        instant = block.instant_time
        if instant is None:
            raise CorruptFileError("a metadata log block without an instant time", where=block.location)
        committed = self.state.snapshot.timeline.is_committed_write(instant)
        return committed and instant in self.valid_instants


def base_records(
    storage: Storage, path: str, wanted: tuple[bytes, ...] | None = None
) -> Iterator[tuple[str, MetadataRecord]]:
    """The records of the base HFile at ``path`` (key, record), in key order; ``wanted``: only
    the keys starting with one of these prefixes (sorted), found through the index."""
    where = storage.uri(path)
    data = storage.read_bytes(path)
    if wanted is None:
        hfile = read_hfile(data, where)
        schema, cells = _base_schema(hfile.file_info, where), hfile.cells
    else:
        schema = _base_schema(read_file_info(data, where), where)
        cells = tuple(read_cells_with_prefixes(data, where, wanted))
    for cell in cells:
        yield cell.key.decode(), decode_value(cell.value, schema, where)


def _merge_hfile_block(
    block: LogBlock, merged: dict[str, MetadataRecord], wanted: tuple[bytes, ...] | None
) -> None:
    schema = _block_schema(block)
    if wanted is None:
        cells: Sequence[HFileCell] = read_hfile(block.content, block.location).cells
    else:
        cells = read_cells_with_prefixes(block.content, block.location, wanted)
    for cell in cells:
        key = cell.key.decode()
        merged[key] = merge_records(merged.get(key), decode_value(cell.value, schema, block.location))


def _block_schema(block: LogBlock) -> str:
    schema = block.schema_json
    if schema is None:
        raise CorruptFileError("an HFILE_DATA block without a schema header", where=block.location)
    return schema


def _base_schema(file_info: Sequence[tuple[bytes, bytes]], where: str) -> str:
    schema = dict(file_info).get(BASE_FILE_SCHEMA_KEY)
    if schema is None:
        raise CorruptFileError("a metadata base HFile without the 'schema' file-info entry", where=where)
    return schema.decode()


def _slices_to_merge(group: FileGroup) -> list[FileSlice]:
    """The latest slice, with the earlier ones down to the newest that has a base file (a
    slice opened by a pending compaction has none yet), oldest first."""
    chosen: list[FileSlice] = []
    for file_slice in group.slices_newest_first():
        chosen.append(file_slice)
        if file_slice.base_file is not None:
            break
    return list(reversed(chosen))


def open_metadata_table(data: TableState, listed: Iterable[str] | None = None) -> MetadataTable | None:
    """The metadata table of ``data``, or None where the table has none (no
    ``.hoodie/metadata/.hoodie/hoodie.properties``). ``listed``: the metadata partitions whose
    folders are listed (default: all); the others have no file groups in this reading."""
    info = data.snapshot.metadata_table
    if not info.exists:
        return None
    config = data.snapshot.config
    where = data.storage.uri(METADATA_TABLE_DIR)
    if config.version < MIN_TABLE_VERSION:
        raise UnsupportedTableError(
            f"a metadata table of table version {config.version} is not read "
            f"(versions {MIN_TABLE_VERSION} and 9 are)",
            where=where,
            hint="set `metadata_table: drop` for this table (the next Hudi writer rebuilds it)",
        )
    storage = data.storage.child(METADATA_TABLE_DIR)
    partitions = tuple(metadata_partition(name, where) for name in info.partitions)
    folders = [p.name for p in partitions] + [p for p in info.inflight_partitions if p not in info.partitions]
    if listed is not None:
        folders = [name for name in folders if name in set(listed)]
    state = read_table_state(storage, partitions=folders, verify=False)
    valid = valid_instant_times(data.storage, data.snapshot.timeline, state.snapshot.timeline)
    return MetadataTable(storage, state, partitions, tuple(info.inflight_partitions), valid, data)
