"""``.hoodie/hoodie.properties``: Java properties parsing and the typed table config."""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from maintainer.errors import CorruptFileError, UnsupportedTableError

PROPERTIES_FILE = ".hoodie/hoodie.properties"
SUPPORTED_VERSIONS = (6, 8, 9)


class TableType(str, Enum):
    COPY_ON_WRITE = "COPY_ON_WRITE"
    MERGE_ON_READ = "MERGE_ON_READ"

    @property
    def short(self) -> str:
        return "cow" if self is TableType.COPY_ON_WRITE else "mor"


class MergeMode(str, Enum):
    EVENT_TIME_ORDERING = "EVENT_TIME_ORDERING"
    COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"
    CUSTOM = "CUSTOM"


# payload classes whose merge keeps the latest write regardless of the ordering field
_COMMIT_TIME_PAYLOADS = {
    "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload",
}


class _MalformedEscapeError(Exception):
    """A ``\\uxxxx`` escape without four hex digits (Java's IllegalArgumentException)."""


def _unescape(text: str) -> str:
    """Undo Java properties escapes (``\\:``, ``\\=``, ``\\uXXXX``, ``\\t``…)."""
    out: list[str] = []
    i = 0
    simple = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise _MalformedEscapeError(f"malformed \\uxxxx encoding: {text[i : i + 6]!r}")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(simple.get(nxt, nxt))
        i += 2
    return "".join(out)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JAVA_WHITESPACE = " \t\f"


def _logical_lines(text: str) -> list[str]:
    """Natural lines joined at odd trailing backslashes; comments and blank lines dropped.

    As in Java, only ``\\n``, ``\\r`` and ``\\r\\n`` end a line, leading whitespace is
    skipped and trailing whitespace belongs to the value.
    """
    lines: list[str] = []
    pending = ""
    for raw in _LINE_BREAK.split(text):
        line = raw.lstrip(_JAVA_WHITESPACE)
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _split_key_value(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] in "=:" or line[i] in _JAVA_WHITESPACE:
            break
        i += 1
    key, rest = line[:i], line[i:].lstrip(_JAVA_WHITESPACE)
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(_JAVA_WHITESPACE)
    return _unescape(key), _unescape(rest)


def parse_java_properties(text: str, where: str = PROPERTIES_FILE) -> dict[str, str]:
    """Parse the Java ``Properties.load`` format into a dict (CorruptFileError on a malformed
    ``\\uXXXX`` escape, where Java throws IllegalArgumentException)."""
    try:
        return dict(_split_key_value(line) for line in _logical_lines(text))
    except _MalformedEscapeError as exc:
        raise CorruptFileError(f"hoodie.properties cannot be parsed: {exc}", where=where) from exc


def _escape(text: str, is_key: bool) -> str:
    out: list[str] = []
    for index, char in enumerate(text):
        if char in "\\=:#!":
            out.append("\\" + char)
        elif char == " " and (is_key or index == 0):
            out.append("\\ ")
        elif char in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[char])
        elif ord(char) < 0x20 or ord(char) > 0x7E:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)


def format_java_properties(values: Mapping[str, str], header_comments: tuple[str, ...] = ()) -> str:
    """Write properties the way ``java.util.Properties.store`` does (comments first)."""
    lines = [f"#{comment}" for comment in header_comments]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def table_checksum(database: str, table_name: str) -> int:
    """``hoodie.table.checksum``: CRC32 of ``"<database>.<table>"``."""
    return zlib.crc32(f"{database}.{table_name}".encode())


def _split_fields(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(part.split(":", 1)[0].strip() for part in value.split(",") if part.strip())


def _as_bool(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() == "true"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The parts of ``hoodie.properties`` the tool relies on; ``raw`` keeps every key."""

    name: str
    table_type: TableType
    version: int
    timeline_layout: int
    timeline_path: str
    history_path: str
    archive_folder: str
    record_key_fields: tuple[str, ...]
    ordering_fields: tuple[str, ...]
    partition_fields: tuple[str, ...]
    key_generator: str
    hive_style_partitioning: bool
    url_encode_partitions: bool
    populate_meta_fields: bool
    base_file_format: str
    log_file_format: str
    timeline_timezone: str
    merge_mode: MergeMode
    payload_class: str
    metadata_partitions: tuple[str, ...]
    metadata_partitions_inflight: tuple[str, ...]
    database: str
    create_schema: str | None
    raw: Mapping[str, str] = field(repr=False)
    properties_problem: str | None = None
    """Why ``hoodie.properties`` itself was not used (missing or corrupt) when the config was read
    from ``hoodie.properties.backup``, as Hudi reads it; None when it was read from the file."""

    @property
    def is_mor(self) -> bool:
        return self.table_type is TableType.MERGE_ON_READ

    @property
    def is_partitioned(self) -> bool:
        return bool(self.partition_fields)

    @property
    def timeline_dir(self) -> str:
        """The active timeline directory, relative to the table base path."""
        return ".hoodie" if self.timeline_layout == 1 else f".hoodie/{self.timeline_path}"

    @property
    def archive_dir(self) -> str:
        if self.timeline_layout == 1:
            return f".hoodie/{self.archive_folder}"
        return f"{self.timeline_dir}/{self.history_path}"

    @property
    def has_metadata_table(self) -> bool:
        return bool(self.metadata_partitions or self.metadata_partitions_inflight)

    @property
    def base_file_extension(self) -> str:
        return "." + self.base_file_format.lower()


def _merge_mode(raw: Mapping[str, str], ordering: tuple[str, ...]) -> MergeMode:
    explicit = raw.get("hoodie.record.merge.mode")
    if explicit:
        try:
            return MergeMode(explicit.upper())
        except ValueError:
            return MergeMode.CUSTOM
    payload = raw.get("hoodie.compaction.payload.class", "")
    if payload in _COMMIT_TIME_PAYLOADS or not ordering:
        return MergeMode.COMMIT_TIME_ORDERING
    return MergeMode.EVENT_TIME_ORDERING


def _version(raw: Mapping[str, str], where: str) -> int:
    text = raw.get("hoodie.table.version")
    if text is None:
        raise CorruptFileError(
            "hoodie.table.version is missing",
            where=where,
            hint="the file is incomplete; restore it from hoodie.properties.backup if one exists",
        )
    try:
        version = int(text)
    except ValueError as exc:
        raise CorruptFileError(f"hoodie.table.version is not a number: {text!r}", where=where) from exc
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise UnsupportedTableError(
            f"table version {version} is not supported (supported: {supported})",
            where=where,
            hint="upgrade the table with Hudi (CALL upgrade_table) to version 6 or 8, or leave it out",
        )
    return version


def _layout(raw: Mapping[str, str], version: int, where: str) -> int:
    text = raw.get("hoodie.timeline.layout.version", "1" if version < 8 else "2")
    if text not in ("1", "2"):
        raise CorruptFileError(f"hoodie.timeline.layout.version must be 1 or 2, not {text!r}", where=where)
    return int(text)


CHECKSUM_KEY = "hoodie.table.checksum"
CHECKSUM_SINCE_VERSION = 4
"""Hudi writes ``hoodie.table.checksum`` since 0.11.0 (table version 4), as the file's last line."""

_CUT_SHORT_HINT = (
    "the file is incomplete or was edited; Hudi reads .hoodie/hoodie.properties.backup instead when "
    "that one is valid: check it and copy it over hoodie.properties, or restore the file from a backup"
)


def _declared_version(raw: Mapping[str, str]) -> int | None:
    text = raw.get("hoodie.table.version", "")
    return int(text) if text.strip().isdigit() else None


_JAVA_LONG = re.compile(r"^[+-]?[0-9]+$")


def _java_long(text: str) -> int | None:
    """``Long.parseLong``: an optional sign and decimal digits, nothing else (None: it throws)."""
    if not _JAVA_LONG.match(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def verify_checksum(raw: Mapping[str, str], where: str = PROPERTIES_FILE) -> None:
    """Check ``hoodie.table.checksum`` as Hudi's ``HoodieTableConfig.validateChecksum`` does
    (CRC32 of ``"<database>.<table>"``; a value that is not a number is invalid too). Hudi
    accepts a file without it; it always writes it last since table version 4, so on those
    versions a missing checksum means the file was cut short (e.g. before the partition fields)
    and it is refused here."""
    text = raw.get(CHECKSUM_KEY)
    if text is None:
        version = _declared_version(raw)
        if version is not None and version >= CHECKSUM_SINCE_VERSION:
            raise CorruptFileError(
                f"{CHECKSUM_KEY} is missing, but table version {version} always writes it (as the "
                "last line): the file was cut short",
                where=where,
                hint=_CUT_SHORT_HINT,
            )
        return
    if not raw.get("hoodie.table.name"):
        raise CorruptFileError("hoodie.table.name is missing", where=where, hint=_CUT_SHORT_HINT)
    expected = table_checksum(raw.get("hoodie.database.name", ""), raw["hoodie.table.name"])
    if _java_long(text) != expected:
        raise CorruptFileError(
            f"{CHECKSUM_KEY} is {text!r}, but the table name gives {expected}",
            where=where,
            hint=_CUT_SHORT_HINT,
        )


REQUIRED_KEYS = ("hoodie.table.name", "hoodie.table.type", "hoodie.table.version")
"""Keys Hudi writes in every ``hoodie.properties`` (``HoodieTableConfig.create``)."""


def verify_required_keys(raw: Mapping[str, str], where: str = PROPERTIES_FILE) -> None:
    missing = [key for key in REQUIRED_KEYS if not raw.get(key, "").strip()]
    if missing:
        raise CorruptFileError(
            f"required key(s) missing: {', '.join(missing)}", where=where, hint=_CUT_SHORT_HINT
        )


def table_config_from_properties(raw: Mapping[str, str], where: str = PROPERTIES_FILE) -> TableConfig:
    """Build the typed config; refuses unsupported versions and missing required keys."""
    version = _version(raw, where)
    name = raw.get("hoodie.table.name")
    if not name:
        raise CorruptFileError("hoodie.table.name is missing", where=where)
    type_text = raw.get("hoodie.table.type", TableType.COPY_ON_WRITE.value)
    try:
        table_type = TableType(type_text)
    except ValueError as exc:
        raise CorruptFileError(f"unknown hoodie.table.type {type_text!r}", where=where) from exc
    layout = _layout(raw, version, where)
    ordering = _split_fields(
        raw.get("hoodie.table.ordering.fields") or raw.get("hoodie.table.precombine.field")
    )
    keygen = raw.get("hoodie.table.keygenerator.class") or raw.get("hoodie.table.keygenerator.type", "")
    return TableConfig(
        name=name,
        table_type=table_type,
        version=version,
        timeline_layout=layout,
        timeline_path=raw.get("hoodie.timeline.path", "timeline"),
        history_path=raw.get("hoodie.timeline.history.path", "history"),
        archive_folder=raw.get("hoodie.archivelog.folder", "archived"),
        record_key_fields=_split_fields(raw.get("hoodie.table.recordkey.fields")),
        ordering_fields=ordering,
        partition_fields=_split_fields(raw.get("hoodie.table.partition.fields")),
        key_generator=keygen,
        hive_style_partitioning=_as_bool(raw.get("hoodie.datasource.write.hive_style_partitioning"), False),
        url_encode_partitions=_as_bool(raw.get("hoodie.datasource.write.partitionpath.urlencode"), False),
        populate_meta_fields=_as_bool(raw.get("hoodie.populate.meta.fields"), True),
        base_file_format=raw.get("hoodie.table.base.file.format", "PARQUET").upper(),
        log_file_format=raw.get("hoodie.table.log.file.format", "HOODIE_LOG"),
        timeline_timezone=raw.get("hoodie.table.timeline.timezone", "LOCAL").upper(),
        merge_mode=_merge_mode(raw, ordering),
        payload_class=raw.get("hoodie.compaction.payload.class", ""),
        metadata_partitions=_split_fields(raw.get("hoodie.table.metadata.partitions")),
        metadata_partitions_inflight=_split_fields(raw.get("hoodie.table.metadata.partitions.inflight")),
        database=raw.get("hoodie.database.name", ""),
        create_schema=raw.get("hoodie.table.create.schema"),
        raw=dict(raw),
    )


def parse_table_config(data: bytes, where: str = PROPERTIES_FILE) -> TableConfig:
    """Parse the bytes of a ``hoodie.properties`` file."""
    try:
        text = data.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes everything
        raise CorruptFileError("hoodie.properties is not text", where=where) from exc
    raw = parse_java_properties(text, where)
    if not raw:
        raise CorruptFileError(
            "hoodie.properties is empty or has no key=value lines",
            where=where,
            hint="restore it from .hoodie/hoodie.properties.backup or from a backup of the table",
        )
    verify_checksum(raw, where)
    verify_required_keys(raw, where)
    return table_config_from_properties(raw, where)
