"""``.hoodie/hoodie.properties``: the typed table config, read through the property registry
(:mod:`maintainer.hudi.config.table_properties`) and checked as Hudi checks it."""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.config.java_properties import (
    PROPERTIES_FILE,
    format_java_properties,
    parse_java_properties,
)
from maintainer.hudi.config.table_properties import REQUIRED_PROPERTIES, HudiTableConfig, MergeMode, TableType
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.storage.limits import MAX_PROPERTIES_BYTES, SizedStorage, read_capped

__all__ = [  # the Java format and the enums live in their own modules; importable from here too
    "CHECKSUM_KEY",
    "CHECKSUM_SINCE_VERSION",
    "PROPERTIES_FILE",
    "REQUIRED_KEYS",
    "SUPPORTED_VERSIONS",
    "MergeMode",
    "TableConfig",
    "TableType",
    "format_java_properties",
    "parse_java_properties",
    "parse_table_config",
    "read_properties_file",
    "table_checksum",
    "table_config_from_properties",
    "verify_checksum",
    "verify_required_keys",
]

SUPPORTED_VERSIONS = (6, 8, 9)
Keys = HudiTableConfig

# payload classes whose merge keeps the latest write regardless of the ordering field
_COMMIT_TIME_PAYLOADS = {
    "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload",
}


def table_checksum(database: str, table_name: str) -> int:
    """``hoodie.table.checksum``: CRC32 of ``"<database>.<table>"``."""
    return zlib.crc32(f"{database}.{table_name}".encode())


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The parts of ``hoodie.properties`` the tool relies on; ``raw`` keeps every key."""

    name: str
    table_type: TableType
    version: int
    timeline_layout: TimelineLayout
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
        return self.timeline_layout.timeline_dir(self.timeline_path)

    @property
    def archive_dir(self) -> str:
        return self.timeline_layout.archive_dir(self.archive_folder, self.timeline_path, self.history_path)

    @property
    def has_metadata_table(self) -> bool:
        return bool(self.metadata_partitions or self.metadata_partitions_inflight)

    @property
    def base_file_extension(self) -> str:
        return "." + self.base_file_format.lower()


def _merge_mode(raw: Mapping[str, str], ordering: tuple[str, ...]) -> MergeMode:
    explicit = Keys.RECORD_MERGE_MODE.read(raw)
    if explicit is not None:
        return explicit
    if Keys.PAYLOAD_CLASS.read(raw) in _COMMIT_TIME_PAYLOADS or not ordering:
        return MergeMode.COMMIT_TIME_ORDERING
    return MergeMode.EVENT_TIME_ORDERING


def _version(raw: Mapping[str, str], where: str) -> int:
    version = Keys.VERSION.read(raw, where)
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise UnsupportedTableError(
            f"table version {version} is not supported (supported: {supported})",
            where=where,
            hint=f"upgrade the table with Hudi (CALL upgrade_table) to a version listed ({supported}), "
            "or leave it out",
        )
    return version


def _layout(raw: Mapping[str, str], version: int, where: str) -> TimelineLayout:
    declared = Keys.TIMELINE_LAYOUT_VERSION.read(raw, where)
    return TimelineLayout.for_version(version) if declared is None else declared


def _ordering_fields(raw: Mapping[str, str]) -> tuple[str, ...]:
    """``hoodie.table.ordering.fields`` (version 8+), else ``hoodie.table.precombine.field``."""
    return Keys.ORDERING_FIELDS.read(raw) or Keys.PRECOMBINE_FIELD.read(raw)


def _key_generator(raw: Mapping[str, str]) -> str:
    """``hoodie.table.keygenerator.class`` (version 6), else ``hoodie.table.keygenerator.type``."""
    return Keys.KEY_GENERATOR_CLASS.read(raw) or Keys.KEY_GENERATOR_TYPE.read(raw)


CHECKSUM_KEY = Keys.CHECKSUM.key
CHECKSUM_SINCE_VERSION = 4
"""Hudi writes ``hoodie.table.checksum`` since 0.11.0 (table version 4), as the file's last line."""

_CUT_SHORT_HINT = (
    "the file is incomplete or was edited; Hudi reads .hoodie/hoodie.properties.backup instead when "
    "that one is valid: check it and copy it over hoodie.properties, or restore the file from a backup"
)


def _declared_version(raw: Mapping[str, str]) -> int | None:
    text = Keys.VERSION.text(raw) or ""
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
    name = Keys.NAME.text(raw)
    if not name:
        raise CorruptFileError(f"{Keys.NAME.key} is missing", where=where, hint=_CUT_SHORT_HINT)
    expected = table_checksum(Keys.DATABASE_NAME.read(raw), name)
    if _java_long(text) != expected:
        raise CorruptFileError(
            f"{CHECKSUM_KEY} is {text!r}, but the table name gives {expected}",
            where=where,
            hint=_CUT_SHORT_HINT,
        )


REQUIRED_KEYS = tuple(entry.key for entry in REQUIRED_PROPERTIES)
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
    ordering = _ordering_fields(raw)
    return TableConfig(
        name=Keys.NAME.read(raw, where),
        table_type=Keys.TYPE.read(raw, where),
        version=version,
        timeline_layout=_layout(raw, version, where),
        timeline_path=Keys.TIMELINE_PATH.read(raw),
        history_path=Keys.TIMELINE_HISTORY_PATH.read(raw),
        archive_folder=Keys.ARCHIVELOG_FOLDER.read(raw),
        record_key_fields=Keys.RECORDKEY_FIELDS.read(raw),
        ordering_fields=ordering,
        partition_fields=Keys.PARTITION_FIELDS.read(raw),
        key_generator=_key_generator(raw),
        hive_style_partitioning=Keys.HIVE_STYLE_PARTITIONING.read(raw),
        url_encode_partitions=Keys.URL_ENCODE_PARTITIONING.read(raw),
        populate_meta_fields=Keys.POPULATE_META_FIELDS.read(raw),
        base_file_format=Keys.BASE_FILE_FORMAT.read(raw),
        log_file_format=Keys.LOG_FILE_FORMAT.read(raw),
        timeline_timezone=Keys.TIMELINE_TIMEZONE.read(raw),
        merge_mode=_merge_mode(raw, ordering),
        payload_class=Keys.PAYLOAD_CLASS.read(raw),
        metadata_partitions=Keys.METADATA_PARTITIONS.read(raw),
        metadata_partitions_inflight=Keys.METADATA_PARTITIONS_INFLIGHT.read(raw),
        database=Keys.DATABASE_NAME.read(raw),
        create_schema=Keys.CREATE_SCHEMA.read(raw),
        raw=dict(raw),
    )


def read_properties_file(storage: SizedStorage, path: str = PROPERTIES_FILE) -> bytes:
    """The bytes of ``hoodie.properties`` (or its backup at ``path``), at most
    :data:`~maintainer.storage.limits.MAX_PROPERTIES_BYTES`: a larger one is a
    :class:`CorruptFileError` naming it, its bytes never read."""
    return read_capped(storage, path, MAX_PROPERTIES_BYTES, what="hoodie.properties", error=CorruptFileError)


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
