"""Byte-level helpers of the HFile format: bounds-checked reads, Java integers, variable-length ints.

Two variable-length integer encodings meet in an HFile. Protobuf varints (7 bits a byte, low
bits first) frame the trailer, the file-info block and, in Hudi's own writer, the lengths of
index keys (``HFileBlock.getVariableLengthEncodedBytes``). Hadoop's ``WritableUtils`` vints (a
length byte, then big-endian bytes) frame index keys in HBase's writer
(``Bytes.writeByteArray``) and the memstore timestamp after each cell.

Every read failure raises :class:`~maintainer.errors.CorruptFileError` through :func:`corrupt`.
"""

from __future__ import annotations

import struct

from maintainer.errors import CorruptFileError

BYTE = struct.Struct(">b")
SHORT = struct.Struct(">h")
USHORT = struct.Struct(">H")
INT = struct.Struct(">i")
LONG = struct.Struct(">q")
_U64 = 1 << 64
_MAX_VARINT_BYTES = 10

NOT_HUDI = "the file was written by something other than Hudi, or it is damaged"


def corrupt(where: str, what: str) -> CorruptFileError:
    """The error for bytes that are not an HFile Hudi writes; ``what`` says what is wrong."""
    return CorruptFileError(f"{what}; {NOT_HUDI}", where=where)


def take(data: bytes, pos: int, size: int, where: str, what: str) -> bytes:
    """``size`` bytes of ``data`` at ``pos``; raises when the data ends first."""
    end = pos + size
    if size < 0 or end > len(data):
        raise corrupt(where, f"{what} runs past the end of its data ({end} > {len(data)} bytes)")
    return data[pos:end]


def read_int(data: bytes, pos: int, where: str, what: str) -> int:
    value: int = INT.unpack(take(data, pos, INT.size, where, what))[0]
    return value


def read_long(data: bytes, pos: int, where: str, what: str) -> int:
    value: int = LONG.unpack(take(data, pos, LONG.size, where, what))[0]
    return value


def encode_varint(value: int) -> bytes:
    """A protobuf varint; negative values are written as their 64-bit two's complement."""
    remaining = value % _U64 if value < 0 else value
    out = bytearray()
    while True:
        low = remaining & 0x7F
        remaining >>= 7
        if remaining:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def decode_varint(data: bytes, pos: int, where: str) -> tuple[int, int]:
    """The unsigned protobuf varint at ``pos`` and the position after it."""
    result = 0
    for index in range(_MAX_VARINT_BYTES):
        byte = take(data, pos + index, 1, where, "a varint")[0]
        result |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return result, pos + index + 1
    raise corrupt(where, f"a varint at offset {pos} is longer than {_MAX_VARINT_BYTES} bytes")


def to_signed64(value: int) -> int:
    """A varint's 64 bits read as a Java ``long``."""
    return value - _U64 if value >= 1 << 63 else value


def encode_hadoop_vint(value: int) -> bytes:
    """``WritableUtils.writeVLong`` for a value that fits its one-byte form or is non-negative."""
    if -112 <= value <= 127:
        return bytes([value & 0xFF])
    if value < 0:
        raise ValueError(f"negative Hadoop vint {value} is not needed by HFiles")
    payload = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return bytes([(-112 - len(payload)) & 0xFF]) + payload


def decode_hadoop_vint(data: bytes, pos: int, where: str) -> tuple[int, int]:
    """``WritableUtils.readVLong``: the value at ``pos`` and the position after it."""
    first = BYTE.unpack(take(data, pos, 1, where, "a Hadoop vint"))[0]
    if first >= -112:
        return first, pos + 1
    negative = first < -120
    size = (-119 - first) if negative else (-111 - first)
    payload = take(data, pos + 1, size - 1, where, "a Hadoop vint")
    value = int.from_bytes(payload, "big")
    return (~value if negative else value), pos + size
