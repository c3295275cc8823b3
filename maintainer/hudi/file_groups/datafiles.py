"""The data files of a partition's listing: its Hudi base and log files, parsed from their names
(HUDI.md §2), once per listing. The hot loop of table loading: one regex match and one object
per data file."""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.file_groups.filenames import (
    BASE_FILE_EXTENSIONS,
    BASE_FILE_PATTERN,
    LOG_FILE_PATTERN,
    PARTITION_METADATA_PREFIX,
    PLAIN_BASE_FILE_PATTERN,
    PLAIN_LOG_FILE_PATTERN,
)
from maintainer.storage import FileInfo
from maintainer.storage.listing import DirListing

_new_object = object.__new__
_BASE_FILE_SETTERS = tuple(
    vars(BaseFile)[f].__set__ for f in ("partition", "name", "size", "file_id", "instant_time")
)
_LOG_FILE_SETTERS = tuple(
    vars(LogFile)[f].__set__
    for f in ("partition", "name", "size", "file_id", "instant_time", "log_version", "write_token")
)


def _new_base_file(partition: str, name: str, size: int, file_id: str, instant: str) -> BaseFile:
    """``BaseFile(...)`` in half the time: the fields are set through their slots directly (a
    frozen dataclass's ``__init__`` goes through ``object.__setattr__`` per field); a view
    builds one per data file of the table."""
    base_file: BaseFile = _new_object(BaseFile)
    set_partition, set_name, set_size, set_file_id, set_instant = _BASE_FILE_SETTERS
    set_partition(base_file, partition)
    set_name(base_file, name)
    set_size(base_file, size)
    set_file_id(base_file, file_id)
    set_instant(base_file, instant)
    return base_file


def _new_log_file(
    partition: str, name: str, size: int, file_id: str, instant: str, version: int, token: str | None
) -> LogFile:
    """``LogFile(...)``, as fast as :func:`_new_base_file`."""
    log_file: LogFile = _new_object(LogFile)
    set_partition, set_name, set_size, set_file_id, set_instant, set_version, set_token = _LOG_FILE_SETTERS
    set_partition(log_file, partition)
    set_name(log_file, name)
    set_size(log_file, size)
    set_file_id(log_file, file_id)
    set_instant(log_file, instant)
    set_version(log_file, version)
    set_token(log_file, token)
    return log_file


def parse_data_file(partition: str, info: FileInfo) -> BaseFile | LogFile | None:
    """The base or log file of a listing entry; None for anything else."""
    if info.is_dir:
        return None
    return parse_data_file_name(partition, info.name, info.size)


def parse_data_file_name(partition: str, name: str, size: int) -> BaseFile | LogFile | None:
    """The base or log file of that name; None for anything else."""
    files = parse_data_files(partition, DirListing(partition, [name], [size], [False], [None]))
    return files[0] if files else None


_SKIPPED_DOT_PREFIXES = ("._", PARTITION_METADATA_PREFIX)
"""Dot names that are never data files (with ``*.crc``; other junk never parses as a log)."""


def parse_data_files(partition: str, listing: DirListing) -> tuple[BaseFile | LogFile, ...]:
    """The Hudi base and log files of a partition's listing, in listing order (parsed on each
    call: a view keeps what it built, see :class:`maintainer.hudi.file_groups.fsview.PartitionViews`)."""
    return tuple(_parse_data_files(partition, listing))


def _parse_data_files(partition: str, listing: DirListing) -> list[BaseFile | LogFile]:
    base_match, log_match = PLAIN_BASE_FILE_PATTERN.fullmatch, PLAIN_LOG_FILE_PATTERN.fullmatch
    new_base, new_log = _new_base_file, _new_log_file
    files: list[BaseFile | LogFile] = []
    append = files.append
    # one string per distinct file id and instant of the partition, not one per file: a file
    # group's files share them (a third of what a large view holds)
    shared: dict[str, str] = {}
    share = shared.setdefault
    versions: dict[str, int] = {}  # a log version converted once per distinct text
    for name, size in _files_of(listing):
        data_file: BaseFile | LogFile | None
        if name[:1] != ".":
            # base file names never start with a dot, and no junk name parses as one
            base = base_match(name)
            if base is not None:
                file_id, instant = base.groups()
                append(new_base(partition, name, size or 0, share(file_id, file_id), share(instant, instant)))
            elif (data_file := _parse_base(partition, name, size or 0)) is not None:
                append(data_file)
        elif not name.startswith(_SKIPPED_DOT_PREFIXES) and not name.endswith(".crc"):
            log = log_match(name)
            if log is not None:
                file_id, instant, version, token = log.groups()
                number = versions.get(version)
                if number is None:
                    number = versions[version] = int(version)
                file_id, instant, token = (
                    share(file_id, file_id),
                    share(instant, instant),
                    share(token, token),
                )
                append(new_log(partition, name, size or 0, file_id, instant, number, token))
            elif (data_file := _parse_log(partition, name, size or 0)) is not None:
                append(data_file)
    return files


def _files_of(listing: DirListing) -> Iterable[tuple[str, int | None]]:
    """(name, size) of the listing's entries that are not folders."""
    if True not in listing.is_dir:
        return zip(listing.names, listing.sizes, strict=True)
    entries = zip(listing.names, listing.sizes, listing.is_dir, strict=True)
    return [(name, size) for name, size, is_dir in entries if not is_dir]


def _parse_base(partition: str, name: str, size: int) -> BaseFile | None:
    match = BASE_FILE_PATTERN.match(name)
    if match is None or match.group(4) not in BASE_FILE_EXTENSIONS:
        return None
    return _new_base_file(partition, name, size, match.group(1), match.group(3))


def _parse_log(partition: str, name: str, size: int) -> LogFile | None:
    match = LOG_FILE_PATTERN.match(name)
    if match is None or match.group(3) != "log" or match.group(6) is not None:
        return None
    file_id, instant, _, version, token, _ = match.groups()
    return _new_log_file(partition, name, size, file_id, instant, int(version), token)
