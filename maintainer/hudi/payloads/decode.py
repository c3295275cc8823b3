"""Decode instant files into payload models, and encode models into instant-file bytes.

Every ``decode_*`` takes the file's bytes and ``where`` (the file, for error messages). An empty
file decodes as Hudi reads it: ``None`` for plans and metadata, empty commit metadata for commits.
Commit metadata is JSON in table version 6 and Avro from version 8; the format is recognised by
the Avro magic, so callers need not know the table version.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol, TypeVar

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads import jackson
from maintainer.hudi.payloads.clean import CleanerPlan, CleanMetadata
from maintainer.hudi.payloads.clean_encode import clean_metadata_datum, cleaner_plan_parts
from maintainer.hudi.payloads.clustering import RequestedReplaceMetadata
from maintainer.hudi.payloads.commit import CommitMetadata, ReplaceCommitMetadata
from maintainer.hudi.payloads.compaction import CompactionPlan
from maintainer.hudi.payloads.container import (
    CORRUPT_HINT,
    container_of_datum,
    container_of_parts,
    is_container,
    read_named_container,
    write_container,
)
from maintainer.hudi.payloads.records import Record
from maintainer.hudi.payloads.rollback import RollbackMetadata, RollbackPlan
from maintainer.hudi.payloads.savepoint import SavepointMetadata

P = TypeVar("P")


class AvroPayload(Protocol):
    """A model written as an Avro container: its Hudi schema name and its record."""

    SCHEMA: ClassVar[str]

    def to_record(self) -> Record: ...


def encode_avro(payload: AvroPayload) -> bytes:
    """The instant-file bytes of ``payload`` (Avro container; the same payload gives the same bytes).
    Clean plans and clean metadata, which list every file a clean deletes, take a direct
    encoder (same bytes)."""
    if isinstance(payload, CleanerPlan):
        return container_of_parts(payload.SCHEMA, cleaner_plan_parts(payload))
    if isinstance(payload, CleanMetadata):
        return container_of_datum(payload.SCHEMA, clean_metadata_datum(payload))
    return write_container(payload.SCHEMA, payload.to_record())


def encode_commit_metadata_json(metadata: CommitMetadata) -> bytes:
    """A table-version-6 commit/deltacommit/replacecommit file, as Hudi 0.x's Jackson writes it."""
    return metadata.to_json_bytes()


def decode_cleaner_plan(data: bytes, where: str) -> CleanerPlan | None:
    """``clean.requested`` (and v6 ``clean.inflight``); None for an empty file."""
    return _decode_avro(data, where, frozenset({"HoodieCleanerPlan"}), CleanerPlan.from_record)


def decode_clean_metadata(data: bytes, where: str) -> CleanMetadata | None:
    """A completed ``clean``; None for an empty file."""
    return _decode_avro(data, where, frozenset({"HoodieCleanMetadata"}), CleanMetadata.from_record)


def decode_compaction_plan(data: bytes, where: str) -> CompactionPlan | None:
    """``compaction.requested`` / ``logcompaction.requested``; None for an empty file (e.g. ``.inflight``)."""
    return _decode_avro(data, where, frozenset({"HoodieCompactionPlan"}), CompactionPlan.from_record)


def decode_rollback_plan(data: bytes, where: str) -> RollbackPlan | None:
    """``rollback.requested``; None for an empty file (e.g. ``rollback.inflight``)."""
    return _decode_avro(data, where, frozenset({"HoodieRollbackPlan"}), RollbackPlan.from_record)


def decode_rollback_metadata(data: bytes, where: str) -> RollbackMetadata | None:
    """A completed ``rollback``; None for an empty file."""
    return _decode_avro(data, where, frozenset({"HoodieRollbackMetadata"}), RollbackMetadata.from_record)


def decode_savepoint_metadata(data: bytes, where: str) -> SavepointMetadata | None:
    """A completed ``savepoint``; None for an empty file (e.g. ``savepoint.inflight``)."""
    return _decode_avro(data, where, frozenset({"HoodieSavepointMetadata"}), SavepointMetadata.from_record)


def decode_requested_replace_metadata(data: bytes, where: str) -> RequestedReplaceMetadata | None:
    """``replacecommit.requested`` / ``clustering.requested``; None for an empty file."""
    return _decode_avro(
        data, where, frozenset({"HoodieRequestedReplaceMetadata"}), RequestedReplaceMetadata.from_record
    )


def decode_commit_metadata(data: bytes, where: str) -> CommitMetadata:
    """A commit/deltacommit (inflight or completed, JSON or Avro); empty metadata for an empty file."""
    if not data.strip():
        return CommitMetadata.empty()
    return _decode_commit(data, where, CommitMetadata.from_record)


def decode_replace_commit_metadata(data: bytes, where: str) -> ReplaceCommitMetadata:
    """A replacecommit (inflight or completed, JSON or Avro); empty metadata for an empty file."""
    if not data.strip():
        return ReplaceCommitMetadata.empty()
    return _decode_commit(data, where, ReplaceCommitMetadata.from_record)


_COMMIT_SCHEMAS = frozenset({"HoodieCommitMetadata", "HoodieReplaceCommitMetadata"})


def _decode_commit(data: bytes, where: str, convert: Callable[[Mapping[str, Any]], P]) -> P:
    if is_container(data):
        return _decode_named(data, where, _COMMIT_SCHEMAS, convert)
    return _convert(jackson.loads_object(data, where), where, "commit metadata", convert)


def _decode_avro(
    data: bytes, where: str, expected: frozenset[str], convert: Callable[[Mapping[str, Any]], P]
) -> P | None:
    return _decode_named(data, where, expected, convert) if data else None


def _decode_named(
    data: bytes, where: str, expected: frozenset[str], convert: Callable[[Mapping[str, Any]], P]
) -> P:
    name, record = read_named_container(data, where)
    if name not in expected:
        raise CorruptFileError(
            f"expected an Avro {' or '.join(sorted(expected))}, found {name or 'an unnamed schema'}",
            where=where,
            hint="the instant file does not match its action; check the timeline for misnamed files",
        )
    return _convert(record, where, name, convert)


def _convert(
    record: Mapping[str, Any], where: str, name: str, convert: Callable[[Mapping[str, Any]], P]
) -> P:
    try:
        return convert(record)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise CorruptFileError(
            f"not a valid {name}: {type(error).__name__}: {error}", where=where, hint=CORRUPT_HINT
        ) from error
