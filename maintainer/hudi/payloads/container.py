"""Avro object container files holding exactly one record, as Hudi writes its timeline payloads.

Written files follow Java's ``DataFileWriter`` with the null codec: magic ``Obj\\x01``, a metadata
map with only ``avro.schema``, a 16-byte sync marker, then one block with the one record. The sync
marker is derived from the schema and the datum, so the same record always gives the same bytes
(plans must be byte-identical for the same inputs).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError, MaintainerError
from maintainer.hudi.payloads.clean_encode import encode_long
from maintainer.hudi.payloads.schemas import parsed_schema, schema_text

MAGIC = b"Obj\x01"
SYNC_SIZE = 16
CORRUPT_HINT = (
    "the file is damaged or was not written by Hudi; restore it from a backup, or roll back "
    "the instant it belongs to with Hudi"
)


def undecodable_container(error: Exception, where: str) -> CorruptFileError:
    """The error for Avro bytes fastavro could not read (it raises many types on damage)."""
    return CorruptFileError(
        f"cannot decode the Avro container: {type(error).__name__}: {error}", where=where, hint=CORRUPT_HINT
    )


def is_container(data: bytes) -> bool:
    """Whether ``data`` starts like an Avro object container file."""
    return data.startswith(MAGIC)


def read_container(data: bytes, where: str) -> dict[str, Any]:
    """The one record of the Avro container ``data``, decoded with its embedded writer schema.

    Raises :class:`CorruptFileError` naming ``where`` (e.g. the instant file) when ``data`` is not
    an Avro container, cannot be decoded, or does not hold exactly one record.
    """
    return read_named_container(data, where)[1]


def read_named_container(data: bytes, where: str) -> tuple[str, dict[str, Any]]:
    """The short name of the writer schema's record type (e.g. ``HoodieCleanerPlan``) and the one record."""
    if not is_container(data):
        raise CorruptFileError(
            "not an Avro container file (no 'Obj\\x01' magic)", where=where, hint=CORRUPT_HINT
        )
    try:
        reader = fastavro.reader(io.BytesIO(data))
        records = list(reader)
        schema = reader.writer_schema
    except Exception as error:  # fastavro raises many types on damaged input
        raise undecodable_container(error, where) from error
    if len(records) != 1:
        raise CorruptFileError(
            f"expected exactly one Avro record, found {len(records)}", where=where, hint=CORRUPT_HINT
        )
    record = records[0]
    if not isinstance(record, dict):
        raise CorruptFileError(
            f"expected an Avro record, found {type(record).__name__}", where=where, hint=CORRUPT_HINT
        )
    name = schema.get("name", "") if isinstance(schema, dict) else ""
    return str(name).rsplit(".", 1)[-1], record


def write_container(schema_name: str, record: Mapping[str, Any]) -> bytes:
    """An Avro container (null codec) holding ``record`` of Hudi type ``schema_name``.

    The embedded schema is the project's self-contained schema of ``schema_name``; the same
    record always gives the same bytes.
    """
    return container_of_datum(schema_name, encode_datum(schema_name, record))


def container_of_datum(schema_name: str, datum: bytes) -> bytes:
    """The Avro container (null codec) holding the one already encoded record ``datum`` of Hudi
    type ``schema_name`` (what :func:`write_container` writes around it)."""
    return container_of_parts(schema_name, (datum,))


def container_of_parts(schema_name: str, parts: Sequence[bytes]) -> bytes:
    """:func:`container_of_datum` of the datum ``b"".join(parts)``, copying the parts once (a
    clean plan listing 50,000 files is megabytes)."""
    text = schema_text(schema_name).encode("utf-8")
    digest = hashlib.sha256(text)
    digest.update(b"\x00")
    for part in parts:
        digest.update(part)
    sync = digest.digest()[:SYNC_SIZE]
    header = MAGIC + _encode_map({"avro.schema": text}) + sync
    return b"".join((header, encode_long(1), encode_long(sum(map(len, parts))), *parts, sync))


def encode_datum(schema_name: str, record: Mapping[str, Any]) -> bytes:
    """The Avro binary encoding (no container) of ``record`` of Hudi type ``schema_name``."""
    schema = parsed_schema(schema_name)
    try:
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, schema, dict(record))
        decoded = fastavro.schemaless_reader(io.BytesIO(buffer.getvalue()), schema, None)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as error:
        raise _encode_error(schema_name, str(error)) from error
    if decoded != _as_lists(record):
        raise _encode_error(
            schema_name, "the record does not survive encoding (unknown fields, or values of the wrong type)"
        )
    return buffer.getvalue()


def _encode_error(schema_name: str, reason: str) -> MaintainerError:
    return MaintainerError(
        f"cannot encode a {schema_name} record: {reason}",
        where=schema_name,
        hint="this is a bug in maintainer: the payload does not match Hudi's schema; please report it",
    )


def _as_lists(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _as_lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_lists(item) for item in value]
    return value


def _encode_bytes(value: bytes) -> bytes:
    return encode_long(len(value)) + value


def _encode_map(entries: Mapping[str, bytes]) -> bytes:
    body = b"".join(
        _encode_bytes(key.encode("utf-8")) + _encode_bytes(value) for key, value in entries.items()
    )
    return encode_long(len(entries)) + body + encode_long(0)
