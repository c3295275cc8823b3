"""Avro data blocks (and CDC blocks, which share the layout): records in and out.

Content: int content version (3), int record count, then per record an int length and the
record as an Avro binary datum written with the header's SCHEMA. Decoding runs fastavro's
``schemaless_reader`` over one buffer with the parsed schema cached per schema string.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat.binary import INT_BYTES, FormatError, pack_int
from maintainer.hudi.logformat.decimals import bytes_decimal_fields, with_java_decimals
from maintainer.hudi.logformat.model import BlockType, LogBlock

AVRO_CONTENT_VERSION = 3
SUPPORTED_CONTENT_VERSIONS = frozenset({1, 2, 3})
AVRO_RECORD_BLOCK_TYPES = frozenset({BlockType.AVRO_DATA, BlockType.CDC_DATA})
AVRO_ERRORS = (ValueError, EOFError, IndexError, KeyError, TypeError, OverflowError, AttributeError)
_INT = struct.Struct(">i")
_TWO_INTS = struct.Struct(">ii")


@lru_cache(maxsize=128)
def parsed_schema(schema_json: str) -> Any:
    """fastavro's parsed form of a writer schema given as JSON text (cached per string)."""
    return fastavro.parse_schema(json.loads(schema_json))


def decode_avro_content(content: bytes, schema_json: str, where: str) -> list[dict[str, Any]]:
    """The records of an Avro data block's content, as dicts (logical types converted).

    Each datum must end exactly where its length prefix says, so a wrong SCHEMA header or a
    damaged record is reported instead of silently shifting every following record.
    """
    schema = parsed_schema(schema_json)
    buffer = io.BytesIO(content)
    try:
        _, count = _read_prologue(buffer, len(content), where)
        return _read_datums(buffer, schema, count, len(content))
    except FormatError as exc:
        raise CorruptFileError(f"Avro data block content is malformed: {exc}", where=where) from exc
    except AVRO_ERRORS as exc:
        raise CorruptFileError(
            f"Avro records do not decode with the block's SCHEMA: {exc}", where=where
        ) from exc


def _read_prologue(buffer: io.BytesIO, size: int, where: str) -> tuple[int, int]:
    if size < 2 * INT_BYTES:
        raise FormatError(f"content of {size} bytes has no version and record count")
    version, count = _TWO_INTS.unpack(buffer.read(2 * INT_BYTES))
    _check_content_version(version, where)
    if count < 0 or count * INT_BYTES > size - 2 * INT_BYTES:
        raise FormatError(f"implausible record count {count}")
    return int(version), int(count)


def _read_datums(buffer: io.BytesIO, schema: Any, count: int, size: int) -> list[dict[str, Any]]:
    read, tell, unpack = buffer.read, buffer.tell, _INT.unpack
    reader = fastavro.schemaless_reader
    records: list[Any] = []  # dicts: the schema is a record
    append = records.append
    for index in range(count):
        prefix = read(INT_BYTES)
        if len(prefix) != INT_BYTES:
            raise FormatError(f"content ends before record {index} of {count}")
        end = tell() + unpack(prefix)[0]
        append(reader(buffer, schema, None))
        if tell() != end:
            raise FormatError(f"record {index} does not fill its length prefix (ends at {tell()}, not {end})")
    trailing = size - tell()
    if trailing:
        raise FormatError(f"{trailing} bytes after the last of {count} records")
    return records


def _check_content_version(version: int, where: str) -> None:
    if version not in SUPPORTED_CONTENT_VERSIONS:
        raise UnsupportedTableError(
            f"Avro data block content version {version} is not supported",
            where=where,
            hint="content versions 1 to 3 are read; this block comes from an unknown Hudi version",
        )


def encode_avro_content(
    records: Iterable[Mapping[str, Any]], schema_json: str, version: int = AVRO_CONTENT_VERSION
) -> bytes:
    """An Avro data block's content: version, count, then length-prefixed binary datums."""
    schema = parsed_schema(schema_json)
    decimals = bytes_decimal_fields(schema_json)
    parts: list[bytes] = []
    buffer = io.BytesIO()
    for record in records:
        buffer.seek(0)
        buffer.truncate()
        fastavro.schemaless_writer(
            buffer, schema, with_java_decimals(record, decimals) if decimals else record
        )
        datum = buffer.getvalue()
        parts += [pack_int(len(datum)), datum]
    return pack_int(version) + pack_int(len(parts) // 2) + b"".join(parts)


def block_records(block: LogBlock) -> list[dict[str, Any]]:
    """The records of an Avro data or CDC block; CorruptFileError for anything else."""
    if block.is_corrupt:
        raise CorruptFileError(f"corrupt log block: {block.corrupt_reason}", where=block.location)
    if block.block_type is BlockType.HFILE_DATA:
        raise UnsupportedTableError(
            "HFile data blocks (metadata table) are not decoded", where=block.location
        )
    if block.block_type not in AVRO_RECORD_BLOCK_TYPES:
        raise CorruptFileError(f"a {block.block_type.name} block holds no Avro records", where=block.location)
    schema_json = block.schema_json
    if schema_json is None:
        raise CorruptFileError("Avro data block has no SCHEMA header", where=block.location)
    return decode_avro_content(block.content, schema_json, block.location)
