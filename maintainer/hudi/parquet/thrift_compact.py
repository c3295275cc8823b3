"""Thrift's compact protocol, read and written field by field, as Parquet stores its footer
and page headers.

A struct is read into a :class:`Struct`: its fields in the order they were written, each with
its id, its wire type and its value, whatever the schema says; nothing is dropped, so writing
it back gives the same bytes (the encoding of a value is unique, but for field ids written in
their long form, which no Parquet writer does). Only the fields a caller changes need to be
known. Values: ``int`` (byte, i16, i32, i64), ``bool``, ``float``, ``bytes``, :class:`Struct`,
:class:`TList` (lists and sets) and :class:`TMap`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Union

BOOL_TRUE, BOOL_FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)
STOP = 0

_INTS = (BYTE, I16, I32, I64)
_MAX_DEPTH = 64
_MAX_LENGTH = 1 << 31


class ThriftError(ValueError):
    """The bytes are not a compact-protocol struct (or one this module does not read)."""


class Truncated(ThriftError):
    """The struct runs past the end of the bytes given: more bytes are needed."""


Value = Union[int, bool, float, bytes, "Struct", "TList", "TMap"]


@dataclass(slots=True)
class TList:
    """A list (or set) of values of one wire type."""

    element_type: int
    items: list[Value]
    is_set: bool = False


@dataclass(slots=True)
class TMap:
    key_type: int
    value_type: int
    items: list[tuple[Value, Value]]


@dataclass(slots=True)
class Struct:
    """A struct's fields in written order: ``(field id, wire type, value)``."""

    fields: list[tuple[int, int, Value]] = field(default_factory=list)

    def get(self, field_id: int) -> Value | None:
        for fid, _, value in self.fields:
            if fid == field_id:
                return value
        return None

    def set(self, field_id: int, wire_type: int, value: Value) -> None:
        """Replace the field's value, or add the field in field-id order."""
        for index, (fid, _, _) in enumerate(self.fields):
            if fid == field_id:
                self.fields[index] = (fid, wire_type, value)
                return
        position = sum(1 for fid, _, _ in self.fields if fid < field_id)
        self.fields.insert(position, (field_id, wire_type, value))

    def remove(self, field_id: int) -> None:
        self.fields = [f for f in self.fields if f[0] != field_id]


# --- reading ------------------------------------------------------------------------------


class _Reader:
    __slots__ = ("data", "depth", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int) -> None:
        self.data = data
        self.pos = pos
        self.depth = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise Truncated("the struct ends early")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def varint(self) -> int:
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 63:
                raise ThriftError("a varint is longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def raw(self, length: int) -> bytes:
        if length < 0 or length > _MAX_LENGTH:
            raise ThriftError(f"a length of {length} bytes")
        end = self.pos + length
        if end > len(self.data):
            raise Truncated("the struct ends early")
        value = bytes(self.data[self.pos : end])
        self.pos = end
        return value

    def value(self, wire_type: int) -> Value:
        if wire_type in _INTS:
            if wire_type == BYTE:
                b = self.byte()
                return b - 256 if b > 127 else b
            return self.zigzag()
        if wire_type == BINARY:
            return self.raw(self.varint())
        if wire_type == DOUBLE:
            return float(struct.unpack("<d", self.raw(8))[0])
        if wire_type == STRUCT:
            return self.struct()
        if wire_type in (LIST, SET):
            return self.list(is_set=wire_type == SET)
        if wire_type == MAP:
            return self.map()
        if wire_type in (BOOL_TRUE, BOOL_FALSE):  # an element of a collection: one byte
            return self.byte() == BOOL_TRUE
        raise ThriftError(f"unknown wire type {wire_type}")

    def list(self, is_set: bool) -> TList:
        header = self.byte()
        size, element_type = header >> 4, header & 0x0F
        if size == 15:
            size = self.varint()
        if size > len(self.data) - self.pos:  # every element takes at least one byte
            raise Truncated("the list runs past the bytes given")
        return TList(element_type, [self.value(element_type) for _ in range(size)], is_set)

    def map(self) -> TMap:
        size = self.varint()
        if size == 0:
            return TMap(0, 0, [])
        types = self.byte()
        key_type, value_type = types >> 4, types & 0x0F
        if size > len(self.data) - self.pos:
            raise Truncated("the map runs past the bytes given")
        return TMap(
            key_type, value_type, [(self.value(key_type), self.value(value_type)) for _ in range(size)]
        )

    def struct(self) -> Struct:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ThriftError(f"structs nested deeper than {_MAX_DEPTH}")
        fields: list[tuple[int, int, Value]] = []
        last_id = 0
        while True:
            header = self.byte()
            if header == STOP:
                break
            delta, wire_type = header >> 4, header & 0x0F
            field_id = last_id + delta if delta else self.zigzag()
            if wire_type in (BOOL_TRUE, BOOL_FALSE):
                value: Value = wire_type == BOOL_TRUE
            else:
                value = self.value(wire_type)
            fields.append((field_id, wire_type, value))
            last_id = field_id
        self.depth -= 1
        return Struct(fields)


def read_struct(data: bytes | bytearray | memoryview, pos: int = 0) -> tuple[Struct, int]:
    """The struct starting at ``data[pos]`` and the position after it.

    Raises :class:`Truncated` when ``data`` ends inside it, :class:`ThriftError` when it is not one.
    """
    reader = _Reader(data, pos)
    return reader.struct(), reader.pos


# --- writing ------------------------------------------------------------------------------


def _varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _zigzag(out: bytearray, n: int) -> None:
    _varint(out, (n << 1) ^ (n >> 63))


def _write_value(out: bytearray, wire_type: int, value: Value) -> None:
    if wire_type == BYTE:
        out.append(int(value) & 0xFF)  # type: ignore[arg-type]
    elif wire_type in (I16, I32, I64):
        _zigzag(out, int(value))  # type: ignore[arg-type]
    elif wire_type == BINARY:
        assert isinstance(value, bytes)
        _varint(out, len(value))
        out += value
    elif wire_type == DOUBLE:
        out += struct.pack("<d", value)
    elif wire_type == STRUCT:
        assert isinstance(value, Struct)
        _write_struct(out, value)
    elif wire_type in (LIST, SET):
        assert isinstance(value, TList)
        _write_list(out, value)
    elif wire_type == MAP:
        assert isinstance(value, TMap)
        _write_map(out, value)
    elif wire_type in (BOOL_TRUE, BOOL_FALSE):
        out.append(BOOL_TRUE if value else BOOL_FALSE)
    else:
        raise ThriftError(f"unknown wire type {wire_type}")


def _write_list(out: bytearray, value: TList) -> None:
    size = len(value.items)
    if size < 15:
        out.append(size << 4 | value.element_type)
    else:
        out.append(0xF0 | value.element_type)
        _varint(out, size)
    for item in value.items:
        _write_value(out, value.element_type, item)


def _write_map(out: bytearray, value: TMap) -> None:
    _varint(out, len(value.items))
    if value.items:
        out.append(value.key_type << 4 | value.value_type)
    for key, item in value.items:
        _write_value(out, value.key_type, key)
        _write_value(out, value.value_type, item)


def _write_struct(out: bytearray, value: Struct) -> None:
    last_id = 0
    for field_id, declared, item in value.fields:
        is_bool = declared in (BOOL_TRUE, BOOL_FALSE)
        wire_type = (BOOL_TRUE if item else BOOL_FALSE) if is_bool else declared
        delta = field_id - last_id
        if 0 < delta <= 15:
            out.append(delta << 4 | wire_type)
        else:
            out.append(wire_type)
            _zigzag(out, field_id)
        if not is_bool:
            _write_value(out, wire_type, item)
        last_id = field_id
    out.append(STOP)


def write_struct(value: Struct) -> bytes:
    out = bytearray()
    _write_struct(out, value)
    return bytes(out)
