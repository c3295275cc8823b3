"""The log-block model: block types, header keys, header/footer maps and one parsed block.

A Hudi log file is a sequence of blocks (``HUDI.md`` §4). Every block read from a file is a
:class:`LogBlock` that keeps its raw content bytes, its header and footer in file order, and
where it sits in the file, so it can be decoded lazily and re-encoded byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum

MAGIC = b"#HUDI#"
LOG_FORMAT_VERSION = 1


class BlockType(IntEnum):
    """Hudi's ``HoodieLogBlockType``; the value is the ordinal written into the file."""

    COMMAND = 0
    DELETE = 1
    CORRUPT = 2
    AVRO_DATA = 3
    HFILE_DATA = 4
    PARQUET_DATA = 5
    CDC_DATA = 6


class HeaderKey(IntEnum):
    """Hudi's ``HeaderMetadataType``; the value is the ordinal written into the file."""

    INSTANT_TIME = 0
    TARGET_INSTANT_TIME = 1
    SCHEMA = 2
    COMMAND_BLOCK_TYPE = 3
    COMPACTED_BLOCK_TIMES = 4
    RECORD_POSITIONS = 5
    BLOCK_IDENTIFIER = 6
    IS_PARTIAL = 7
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8


class CommandType(IntEnum):
    """Hudi's ``HoodieCommandBlockTypeEnum``; written as the decimal ordinal string."""

    ROLLBACK = 0


@dataclass(frozen=True, slots=True)
class BlockMetadata:
    """A header or footer map, its entries in the order they were (or will be) written.

    Hudi keeps these in a ``HashMap`` keyed by an enum, so the order in a file is arbitrary
    but must be kept to re-encode a block byte for byte.
    """

    entries: tuple[tuple[HeaderKey, str], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[HeaderKey, str]) -> BlockMetadata:
        return cls(tuple((HeaderKey(key), value) for key, value in mapping.items()))

    def get(self, key: HeaderKey) -> str | None:
        for entry_key, value in self.entries:
            if entry_key == key:
                return value
        return None

    def __getitem__(self, key: HeaderKey) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key.name)
        return value

    def __contains__(self, key: object) -> bool:
        return any(entry_key == key for entry_key, _ in self.entries)

    def __iter__(self) -> Iterator[HeaderKey]:
        return (key for key, _ in self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def as_dict(self) -> dict[HeaderKey, str]:
        return dict(self.entries)


EMPTY_METADATA = BlockMetadata()


@dataclass(frozen=True, slots=True)
class LogBlock:
    """One block of a log file.

    ``offset`` is where the block starts in the file (its magic, or the first unreadable byte
    of a corrupt region) and ``size`` how many bytes of the file it spans. For a CORRUPT block
    ``content`` holds the unreadable bytes (after the magic, up to the next magic or the end of
    the file) and ``corrupt_reason`` says why it could not be read.
    """

    block_type: BlockType
    header: BlockMetadata
    footer: BlockMetadata
    content: bytes
    offset: int
    size: int
    where: str
    format_version: int = LOG_FORMAT_VERSION
    corrupt_reason: str | None = None

    @property
    def is_corrupt(self) -> bool:
        return self.block_type is BlockType.CORRUPT

    @property
    def is_data(self) -> bool:
        return self.block_type in DATA_BLOCK_TYPES

    @property
    def instant_time(self) -> str | None:
        """The instant that wrote the block (header ``INSTANT_TIME``)."""
        return self.header.get(HeaderKey.INSTANT_TIME)

    @property
    def target_instant_time(self) -> str | None:
        return self.header.get(HeaderKey.TARGET_INSTANT_TIME)

    @property
    def schema_json(self) -> str | None:
        """The writer's Avro schema (header ``SCHEMA``) as JSON text."""
        return self.header.get(HeaderKey.SCHEMA)

    @property
    def location(self) -> str:
        """``<file> at offset <n>``, for error messages."""
        return f"{self.where} at offset {self.offset}"

    @property
    def end(self) -> int:
        return self.offset + self.size


DATA_BLOCK_TYPES = frozenset(
    {BlockType.AVRO_DATA, BlockType.HFILE_DATA, BlockType.PARQUET_DATA, BlockType.CDC_DATA}
)
