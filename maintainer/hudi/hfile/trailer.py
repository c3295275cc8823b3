"""The fixed 4096-byte trailer at the end of every HFile v3.

Layout (HBase ``FixedFileTrailer.serialize``, Hudi ``HFileWriterImpl.writeTrailer``): the magic
``TRABLK"$``, a varint-delimited ``TrailerProto``, zero padding, and a final int holding the
version as ``minor << 24 | major``. Hudi's writer leaves ``total_uncompressed_bytes`` (field 4)
unset; HBase sets every field but the encryption key.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields

from maintainer.hudi.hfile.binary import INT, corrupt, to_signed64
from maintainer.hudi.hfile.protobuf import decode_delimited, decode_message, encode_delimited, encode_message

TRAILER_SIZE = 4096
TRAILER_MAGIC = b'TRABLK"$'
MAJOR_VERSION = 3
_STRING_FIELD = 11


@dataclass(frozen=True, slots=True)
class Trailer:
    """``TrailerProto`` fields 1 to 12, in field-number order, and the minor version."""

    file_info_offset: int
    load_on_open_offset: int
    uncompressed_data_index_size: int
    total_uncompressed_bytes: int | None
    data_index_count: int
    meta_index_count: int
    entry_count: int
    num_data_index_levels: int
    first_data_block_offset: int
    last_data_block_offset: int
    comparator: str
    compression_codec: int
    minor_version: int


_PROTO_FIELDS = len(fields(Trailer)) - 1


def encode_trailer(trailer: Trailer) -> bytes:
    """The 4096 trailer bytes."""
    values = astuple(trailer)[:_PROTO_FIELDS]
    message = encode_message(
        [
            (number, value.encode() if isinstance(value, str) else value)
            for number, value in enumerate(values, start=1)
            if value is not None
        ]
    )
    head = TRAILER_MAGIC + encode_delimited(message)
    version = INT.pack(trailer.minor_version << 24 | MAJOR_VERSION)
    return head + bytes(TRAILER_SIZE - len(head) - len(version)) + version


def decode_trailer(data: bytes, where: str) -> Trailer:
    """The trailer at the end of ``data``; checks magic, version and that every field is there."""
    if len(data) < TRAILER_SIZE:
        raise corrupt(where, f"it is {len(data)} bytes, shorter than the {TRAILER_SIZE}-byte HFile trailer")
    tail = data[-TRAILER_SIZE:]
    if tail[: len(TRAILER_MAGIC)] != TRAILER_MAGIC:
        raise corrupt(where, f"its last {TRAILER_SIZE} bytes do not start with the trailer magic")
    version: int = INT.unpack(tail[-INT.size :])[0]
    major, minor = version & 0xFFFFFF, (version >> 24) & 0xFF
    if major != MAJOR_VERSION or minor not in (0, 3):
        raise corrupt(where, f"HFile version {major}.{minor} is not 3.0 (Hudi) or 3.3 (HBase)")
    here = f"{where} (trailer)"
    message, end = decode_delimited(tail, len(TRAILER_MAGIC), here, "trailer")
    if end > TRAILER_SIZE - INT.size:
        raise corrupt(here, "the trailer message runs into the version field")
    if any(tail[end : -INT.size]):
        raise corrupt(here, "the padding after the trailer message is not zeros")
    return _trailer_from(dict(decode_message(message, here, "trailer")), minor, here)


def _trailer_from(values: dict[int, int | bytes], minor: int, where: str) -> Trailer:
    unknown = sorted(set(values) - set(range(1, _PROTO_FIELDS + 1)))
    if unknown:
        raise corrupt(where, f"it has trailer fields {unknown} (encryption?) Hudi never writes")
    comparator = values.get(_STRING_FIELD)
    if not isinstance(comparator, bytes):
        raise corrupt(where, "the trailer's comparator class name is missing or not a string")

    def number(field: int) -> int:
        value = values.get(field)
        if not isinstance(value, int):
            raise corrupt(where, f"trailer field {field} is missing or not a number")
        return to_signed64(value)

    return Trailer(
        file_info_offset=number(1),
        load_on_open_offset=number(2),
        uncompressed_data_index_size=number(3),
        total_uncompressed_bytes=number(4) if 4 in values else None,
        data_index_count=number(5),
        meta_index_count=number(6),
        entry_count=number(7),
        num_data_index_levels=number(8),
        first_data_block_offset=number(9),
        last_data_block_offset=number(10),
        comparator=comparator.decode("utf-8", errors="replace"),
        compression_codec=number(12),
        minor_version=minor,
    )
