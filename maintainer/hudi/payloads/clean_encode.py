"""Direct Avro encoders of ``HoodieCleanerPlan`` and ``HoodieCleanMetadata``: the bytes fastavro
writes, ten times faster.

A clean of a large table lists every file it deletes (one ``HoodieCleanFileInfo`` each in the
plan, one name in each of two arrays of its partition's ``HoodieCleanPartitionMetadata`` in
the completed clean), and the generic path (a record of dicts, fastavro, and a decode to check
the record survived) costs microseconds per file. These encoders write the Avro binary encoding
field by field, per the schema (``schemas/avro/HoodieCleanerPlan.avsc``,
``HoodieCleanMetadata.avsc``): unions as their branch index, strings and
bytes length-prefixed, maps and arrays as one block of ``count`` items then ``0`` (an empty
one as ``0`` alone), longs and ints zig-zag varints. Tests check it against fastavro on the
clean plans of the fixture tables and on generated plans and metadata.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from maintainer.errors import MaintainerError
from maintainer.hudi.payloads.clean import CleanerPlan, CleanFileInfo, CleanMetadata, CleanPartitionMetadata
from maintainer.hudi.payloads.common import ActionInstant

SCHEMA_NAME = "HoodieCleanerPlan"
METADATA_SCHEMA_NAME = "HoodieCleanMetadata"

_FIRST_BRANCH = b"\x00"
_SECOND_BRANCH = b"\x02"
_END_OF_BLOCKS = b"\x00"
_BOOLEANS = {None: _FIRST_BRANCH, False: b"\x02\x00", True: b"\x02\x01"}
"""``["null", "boolean"]`` unions."""


def encode_long(value: int) -> bytes:
    """Avro's zig-zag varint of an int or long."""
    zigzag = (value << 1) ^ (value >> 63)
    out = bytearray()
    while zigzag > 0x7F:
        out.append((zigzag & 0x7F) | 0x80)
        zigzag >>= 7
    out.append(zigzag)
    return bytes(out)


_SMALL_LONGS = tuple(encode_long(n) for n in range(4096))
"""Encodings of 0 to 4095: lengths and counts, the per-file case."""


def _long(value: int) -> bytes:
    return _SMALL_LONGS[value] if 0 <= value < 4096 else encode_long(value)


def _string(value: str) -> bytes:
    data = value.encode("utf-8")
    return _long(len(data)) + data


def _block(items: Sequence[bytes]) -> bytes:
    """An array or map: one block with every item, then the end marker."""
    if not items:
        return _END_OF_BLOCKS
    return _long(len(items)) + b"".join(items) + _END_OF_BLOCKS


def _string_array(values: Iterable[str]) -> bytes:
    return _block([_string(value) for value in values])


def _strings_map(values: Mapping[str, Iterable[str]]) -> bytes:
    return _block([_string(key) + _string_array(names) for key, names in values.items()])


def _string_map(values: Mapping[str, str]) -> bytes:
    return _block([_string(key) + _string(value) for key, value in values.items()])


def _clean_file_infos(infos: Sequence[CleanFileInfo]) -> bytes:
    """An array of ``HoodieCleanFileInfo`` (the hot loop: one path per deleted file)."""
    booleans, long_of = _BOOLEANS, _long
    parts: list[bytes] = []
    for info in infos:
        path = info.file_path
        if path is None:
            parts.append(_FIRST_BRANCH)
        else:
            data = path.encode("utf-8")
            parts.append(_SECOND_BRANCH + long_of(len(data)) + data)
        parts.append(booleans[info.is_bootstrap_base_file])
    return _long(len(infos)) + b"".join(parts) + _END_OF_BLOCKS if infos else _END_OF_BLOCKS


def _file_infos_map(values: Mapping[str, Sequence[CleanFileInfo]]) -> bytes:
    return _block([_string(key) + _clean_file_infos(infos) for key, infos in values.items()])


def _action_instant(instant: ActionInstant) -> bytes:
    return _string(instant.timestamp) + _string(instant.action) + _string(instant.state)


def _int(value: int, name: str) -> bytes:
    """An Avro ``int`` (a long's encoding, refused beyond 32 bits)."""
    if not -(2**31) <= value < 2**31:
        raise OverflowError(f"{name} {value} does not fit an Avro int")
    return _long(value)


def _version(version: int | None) -> bytes:
    """The ``["int", "null"]`` union."""
    if version is None:
        return _SECOND_BRANCH
    return _FIRST_BRANCH + _int(version, "version")


def _fields(plan: CleanerPlan) -> list[bytes]:
    """Each field in the schema's order; ``["null", T]`` unions as branch 0 or 1 + T."""
    ectr = plan.earliest_instant_to_retain
    files = plan.files_to_be_deleted_per_partition
    paths = plan.file_paths_to_be_deleted_per_partition
    emptied = plan.partitions_to_be_deleted
    extra = plan.extra_metadata
    return [
        _FIRST_BRANCH if ectr is None else _SECOND_BRANCH + _action_instant(ectr),
        _string(plan.last_completed_commit_timestamp),
        _string(plan.policy),
        _FIRST_BRANCH if files is None else _SECOND_BRANCH + _strings_map(files),
        _version(plan.version),
        _FIRST_BRANCH if paths is None else _SECOND_BRANCH + _file_infos_map(paths),
        _FIRST_BRANCH if emptied is None else _SECOND_BRANCH + _string_array(emptied),
        _FIRST_BRANCH if extra is None else _SECOND_BRANCH + _string_map(extra),
    ]


def cleaner_plan_datum(plan: CleanerPlan) -> bytes:
    """The Avro binary encoding of ``plan`` (no container), as fastavro writes it."""
    try:
        return b"".join(_fields(plan))
    except (AttributeError, KeyError, OverflowError, TypeError, ValueError) as error:
        raise _encode_error(SCHEMA_NAME, error) from error


def _encode_error(schema_name: str, error: Exception) -> MaintainerError:
    return MaintainerError(
        f"cannot encode a {schema_name} record: {type(error).__name__}: {error}",
        where=schema_name,
        hint="this is a bug in maintainer: the payload does not match Hudi's schema; please report it",
    )


def _partition_metadata(partition: CleanPartitionMetadata) -> bytes:
    """A ``HoodieCleanPartitionMetadata`` (the hot part: every deleted file's name, twice)."""
    deleted = partition.is_partition_deleted
    if deleted is not None and not isinstance(deleted, bool):
        raise TypeError(f"isPartitionDeleted {deleted!r} is not a boolean")
    return b"".join(
        (
            _string(partition.partition_path),
            _string(partition.policy),
            _string_array(partition.delete_path_patterns),
            _string_array(partition.success_delete_files),
            _string_array(partition.failed_delete_files),
            _BOOLEANS[deleted],
        )
    )


def _partition_metadata_map(values: Mapping[str, CleanPartitionMetadata]) -> bytes:
    return _block([_string(key) + _partition_metadata(value) for key, value in values.items()])


def _metadata_fields(metadata: CleanMetadata) -> list[bytes]:
    """Each field of ``HoodieCleanMetadata`` in the schema's order."""
    bootstrap = metadata.bootstrap_partition_metadata
    extra = metadata.extra_metadata
    return [
        _string(metadata.start_clean_time),
        _long(metadata.time_taken_in_millis),
        _int(metadata.total_files_deleted, "totalFilesDeleted"),
        _string(metadata.earliest_commit_to_retain),
        _string(metadata.last_completed_commit_timestamp),
        _partition_metadata_map(metadata.partition_metadata),
        _version(metadata.version),
        _FIRST_BRANCH if bootstrap is None else _SECOND_BRANCH + _partition_metadata_map(bootstrap),
        _FIRST_BRANCH if extra is None else _SECOND_BRANCH + _string_map(extra),
    ]


def clean_metadata_datum(metadata: CleanMetadata) -> bytes:
    """The Avro binary encoding of ``metadata`` (no container), as fastavro writes it."""
    try:
        return b"".join(_metadata_fields(metadata))
    except (AttributeError, KeyError, OverflowError, TypeError, ValueError) as error:
        raise _encode_error(METADATA_SCHEMA_NAME, error) from error
