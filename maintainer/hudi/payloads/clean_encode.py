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

The files of a clean plan are written in one string per partition when their paths are ASCII
(nearly always): a character is then a byte, so a path's length is its character count, and the
varint bytes of the lengths are characters of the same value, which Latin-1 encodes back to
those bytes. A plan whose files are a :class:`~maintainer.hudi.payloads.clean.FilesOfPaths` is
written straight from those strings (no ``CleanFileInfo`` object per file).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from maintainer.errors import MaintainerError
from maintainer.hudi.payloads.clean import (
    CleanerPlan,
    CleanFileInfo,
    CleanMetadata,
    CleanPartitionMetadata,
    FilesOfPaths,
)
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


_SMALL_LONG_CHARS = tuple(encoded.decode("latin-1") for encoded in _SMALL_LONGS)
"""The same, as the characters Latin-1 encodes to those bytes."""


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
    """The items of an array of ``HoodieCleanFileInfo`` (the hot loop: one per deleted file)."""
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
    return b"".join(parts)


def _files_not_bootstrap(base: str, paths: Sequence[str]) -> bytes:
    """The items of an array of ``HoodieCleanFileInfo``: ``filePath`` ``base + path`` and
    ``isBootstrapBaseFile`` false for each of ``paths`` (at least one)."""
    if base.isascii() and "".join(paths).isascii() and len(base) + max(map(len, paths)) < len(_SMALL_LONGS):
        lengths, size = _SMALL_LONG_CHARS, len(base)  # a character per byte (module docstring)
        text = "".join([f"\x02{lengths[size + len(path)]}{base}{path}\x02\x00" for path in paths])
        return text.encode("latin-1")
    prefix, long_of, false = base.encode("utf-8"), _long, _BOOLEANS[False]
    parts: list[bytes] = []
    for path in paths:
        data = prefix + path.encode("utf-8")
        parts.append(b"".join((_SECOND_BRANCH, long_of(len(data)), data, false)))
    return b"".join(parts)


def _map_of_arrays(entries: Sequence[tuple[str, int, bytes]]) -> list[bytes]:
    """A map of arrays as parts, to be joined (a large plan is copied once, by that join): for
    each entry its key, then its array of ``count`` items encoded as ``items``."""
    if not entries:
        return [_END_OF_BLOCKS]
    parts = [_long(len(entries))]
    for key, count, items in entries:
        parts.append(_string(key))
        if count:
            parts += (_long(count), items)
        parts.append(_END_OF_BLOCKS)
    parts.append(_END_OF_BLOCKS)
    return parts


def _file_infos_map(values: Mapping[str, Sequence[CleanFileInfo]]) -> list[bytes]:
    return _map_of_arrays(
        [(key, len(infos), _clean_file_infos(infos) if infos else b"") for key, infos in values.items()]
    )


def _file_paths_map(base: str, paths: Mapping[str, Sequence[str]]) -> list[bytes]:
    return _map_of_arrays(
        [
            (partition, len(names), _files_not_bootstrap(base, names) if names else b"")
            for partition, names in paths.items()
        ]
    )


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


def _file_paths_field(paths: Mapping[str, Sequence[CleanFileInfo]] | None) -> list[bytes]:
    """``filePathsToBeDeletedPerPartition`` as parts (from the strings of a ``FilesOfPaths``)."""
    if paths is None:
        return [_FIRST_BRANCH]
    if isinstance(paths, FilesOfPaths):
        return [_SECOND_BRANCH, *_file_paths_map(paths.base, paths.paths)]
    return [_SECOND_BRANCH, *_file_infos_map(paths)]


def _fields(plan: CleanerPlan) -> list[bytes]:
    """Each field in the schema's order, ``filePathsToBeDeletedPerPartition`` in several parts;
    ``["null", T]`` unions as branch 0 or 1 + T."""
    ectr = plan.earliest_instant_to_retain
    files = plan.files_to_be_deleted_per_partition
    emptied = plan.partitions_to_be_deleted
    extra = plan.extra_metadata
    return [
        _FIRST_BRANCH if ectr is None else _SECOND_BRANCH + _action_instant(ectr),
        _string(plan.last_completed_commit_timestamp),
        _string(plan.policy),
        _FIRST_BRANCH if files is None else _SECOND_BRANCH + _strings_map(files),
        _version(plan.version),
        *_file_paths_field(plan.file_paths_to_be_deleted_per_partition),
        _FIRST_BRANCH if emptied is None else _SECOND_BRANCH + _string_array(emptied),
        _FIRST_BRANCH if extra is None else _SECOND_BRANCH + _string_map(extra),
    ]


def cleaner_plan_parts(plan: CleanerPlan) -> list[bytes]:
    """The Avro binary encoding of ``plan`` (no container), as fastavro writes it, in parts to
    join (a large plan is then copied once, by that join)."""
    try:
        return _fields(plan)
    except (AttributeError, KeyError, OverflowError, TypeError, ValueError) as error:
        raise _encode_error(SCHEMA_NAME, error) from error


def cleaner_plan_datum(plan: CleanerPlan) -> bytes:
    """The Avro binary encoding of ``plan`` (no container), as fastavro writes it."""
    return b"".join(cleaner_plan_parts(plan))


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
