"""The little protobuf an HFile needs: messages of varint and length-delimited fields.

The trailer is a ``TrailerProto`` and the file-info block an ``InfoProto`` of
``BytesBytesPair`` entries (HBase ``HFile.proto``). Java's generated code writes set fields in
field-number order, which :func:`encode_message` does when given fields in that order.
"""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.hudi.hfile.binary import corrupt, decode_varint, encode_varint, take

VARINT = 0
LENGTH_DELIMITED = 2

Field = tuple[int, int | bytes]


def encode_message(fields: Sequence[Field]) -> bytes:
    """Fields in the given order: an ``int`` as a varint, ``bytes`` as length-delimited."""
    out = bytearray()
    for number, value in fields:
        if isinstance(value, bytes):
            out += encode_varint(number << 3 | LENGTH_DELIMITED)
            out += encode_varint(len(value))
            out += value
        else:
            out += encode_varint(number << 3 | VARINT)
            out += encode_varint(value)
    return bytes(out)


def decode_message(data: bytes, where: str, what: str) -> list[Field]:
    """Every field of the message ``data``, in order; only wire types 0 and 2 are accepted."""
    fields: list[Field] = []
    pos = 0
    while pos < len(data):
        tag, pos = decode_varint(data, pos, where)
        number, wire_type = tag >> 3, tag & 7
        if wire_type == VARINT:
            value, pos = decode_varint(data, pos, where)
            fields.append((number, value))
        elif wire_type == LENGTH_DELIMITED:
            size, pos = decode_varint(data, pos, where)
            fields.append((number, take(data, pos, size, where, f"field {number} of the {what}")))
            pos += size
        else:
            raise corrupt(where, f"the {what} has a field {number} of unsupported wire type {wire_type}")
    return fields


def encode_delimited(message: bytes) -> bytes:
    """``writeDelimitedTo``: the message preceded by its varint length."""
    return encode_varint(len(message)) + message


def decode_delimited(data: bytes, pos: int, where: str, what: str) -> tuple[bytes, int]:
    """The length-prefixed message at ``pos`` and the position after it."""
    size, start = decode_varint(data, pos, where)
    return take(data, start, size, where, what), start + size
