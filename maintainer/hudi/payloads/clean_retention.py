"""What the next clean reads of a completed clean: its earliest commit to retain and its extra
metadata, decoded without the rest.

A completed clean lists every file it deleted (megabytes for a large clean), and every
incremental clean plan reads the last one; decoding only these two fields (an Avro reader
schema that keeps them, so the decoder skips the others) is three times faster than decoding
the whole :class:`~maintainer.hudi.payloads.clean.CleanMetadata`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads.container import CORRUPT_HINT, is_container, undecodable_container

SCHEMA_NAME = "HoodieCleanMetadata"
RETENTION_FIELDS = frozenset({"earliestCommitToRetain", "lastCompletedCommitTimestamp", "extraMetadata"})


@dataclass(frozen=True, slots=True)
class CleanRetention:
    """A completed clean's ``earliestCommitToRetain``, ``lastCompletedCommitTimestamp`` and
    ``extraMetadata``."""

    earliest_commit_to_retain: str
    extra_metadata: Mapping[str, str] | None
    last_completed_commit: str = ""


def decode_clean_retention(data: bytes, where: str) -> CleanRetention | None:
    """The retention fields of a completed ``clean`` file; None for an empty file. Raises
    :class:`CorruptFileError` naming ``where`` as :func:`decode_clean_metadata` does."""
    if not data:
        return None
    if not is_container(data):
        raise CorruptFileError(
            "not an Avro container file (no 'Obj\\x01' magic)", where=where, hint=CORRUPT_HINT
        )
    name, records = _projected_records(data, where)
    if name != SCHEMA_NAME:
        raise CorruptFileError(
            f"expected an Avro {SCHEMA_NAME}, found {name or 'an unnamed schema'}",
            where=where,
            hint="the instant file does not match its action; check the timeline for misnamed files",
        )
    if len(records) != 1 or not isinstance(records[0], dict):
        raise CorruptFileError(
            f"expected exactly one Avro record, found {len(records)}", where=where, hint=CORRUPT_HINT
        )
    return _retention(records[0], where)


def _projected_records(data: bytes, where: str) -> tuple[str, list[Any]]:
    """The writer schema's short name, and the records read with only the retention fields."""
    try:
        writer = fastavro.reader(io.BytesIO(data)).writer_schema
        if not isinstance(writer, dict) or writer.get("type") != "record":
            return _short_name(writer), []
        fields = [f for f in writer.get("fields", ()) if f.get("name") in RETENTION_FIELDS]
        projected = fastavro.parse_schema({**writer, "fields": fields})
        return _short_name(writer), list(fastavro.reader(io.BytesIO(data), reader_schema=projected))
    except Exception as error:  # fastavro raises many types on damaged input
        raise undecodable_container(error, where) from error


def _short_name(schema: Any) -> str:
    name = schema.get("name", "") if isinstance(schema, dict) else ""
    return str(name).rsplit(".", 1)[-1]


def _retention(record: Mapping[str, Any], where: str) -> CleanRetention:
    try:
        ectr = record["earliestCommitToRetain"]
        extra = record.get("extraMetadata")
        last = record.get("lastCompletedCommitTimestamp") or ""
        return CleanRetention(ectr, None if extra is None else dict(extra), str(last))
    except (KeyError, TypeError, ValueError) as error:
        raise CorruptFileError(
            f"not a valid {SCHEMA_NAME}: {type(error).__name__}: {error}", where=where, hint=CORRUPT_HINT
        ) from error
