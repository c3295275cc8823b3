"""Every ``hoodie.*`` table property maintainer reads: its key, default and parser, in one place.

As hudi-rs's ``HudiTableConfig`` (and Hudi's ``HoodieTableConfig``): callers read a property
through its entry (``HudiTableConfig.BASE_FILE_FORMAT.read(raw)``), never through an inline
key string with an inline default. A value that does not parse is a CorruptFileError naming
the file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Generic, TypeVar

from maintainer.errors import CorruptFileError
from maintainer.hudi.config.java_properties import PROPERTIES_FILE
from maintainer.hudi.instants.layout import TimelineLayout

T = TypeVar("T")


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


@dataclass(frozen=True, slots=True)
class TableProperty(Generic[T]):
    """One ``hoodie.*`` key: ``read`` gives ``default`` when the key is absent (or empty, with
    ``empty_is_default``), else ``parse(value)``; a ``required`` key that is absent is refused."""

    key: str
    default: T
    parse: Callable[[str], T]
    empty_is_default: bool = False
    required: bool = False
    missing_hint: str | None = None

    def text(self, raw: Mapping[str, str]) -> str | None:
        """The value as written (None: absent)."""
        return raw.get(self.key)

    def read(self, raw: Mapping[str, str], where: str = PROPERTIES_FILE) -> T:
        text = raw.get(self.key)
        if text is None or (self.empty_is_default and text == ""):
            if self.required:
                raise CorruptFileError(f"{self.key} is missing", where=where, hint=self.missing_hint)
            return self.default
        try:
            return self.parse(text)
        except ValueError as exc:
            raise CorruptFileError(str(exc), where=where) from exc


def split_fields(value: str) -> tuple[str, ...]:
    """A comma-separated field list (``name[:type]`` entries keep their name)."""
    return tuple(part.split(":", 1)[0].strip() for part in value.split(",") if part.strip())


def _java_bool(value: str) -> bool:
    return value.strip().lower() == "true"


def _upper(value: str) -> str:
    return value.upper()


def _text(value: str) -> str:
    return value


def _version(text: str) -> int:
    try:
        return int(text)
    except ValueError as exc:
        raise ValueError(f"hoodie.table.version is not a number: {text!r}") from exc


def _table_type(text: str) -> TableType:
    try:
        return TableType(text)
    except ValueError as exc:
        raise ValueError(f"unknown hoodie.table.type {text!r}") from exc


def _merge_mode(text: str) -> MergeMode | None:
    """An explicit merge mode; one Hudi adds later than maintainer knows is CUSTOM."""
    try:
        return MergeMode(text.upper())
    except ValueError:
        return MergeMode.CUSTOM


def _layout(text: str) -> TimelineLayout | None:
    return TimelineLayout.parse(text)


class HudiTableConfig:
    """The registry: one entry per key, named as Hudi's ``HoodieTableConfig`` constants."""

    NAME: Final[TableProperty[str]] = TableProperty(
        "hoodie.table.name", "", _text, empty_is_default=True, required=True
    )
    TYPE: Final[TableProperty[TableType]] = TableProperty(
        "hoodie.table.type", TableType.COPY_ON_WRITE, _table_type
    )
    VERSION: Final[TableProperty[int]] = TableProperty(
        "hoodie.table.version",
        0,
        _version,
        required=True,
        missing_hint="the file is incomplete; restore it from hoodie.properties.backup if one exists",
    )
    TIMELINE_LAYOUT_VERSION: Final[TableProperty[TimelineLayout | None]] = TableProperty(
        "hoodie.timeline.layout.version", None, _layout
    )
    """Absent: the layout of the table version (:meth:`TimelineLayout.for_version`)."""
    TIMELINE_PATH: Final[TableProperty[str]] = TableProperty("hoodie.timeline.path", "timeline", _text)
    TIMELINE_HISTORY_PATH: Final[TableProperty[str]] = TableProperty(
        "hoodie.timeline.history.path", "history", _text
    )
    ARCHIVELOG_FOLDER: Final[TableProperty[str]] = TableProperty(
        "hoodie.archivelog.folder", "archived", _text
    )
    RECORDKEY_FIELDS: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.recordkey.fields", (), split_fields
    )
    ORDERING_FIELDS: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.ordering.fields", (), split_fields, empty_is_default=True
    )
    """Table version 8+; before it, :attr:`PRECOMBINE_FIELD`."""
    PRECOMBINE_FIELD: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.precombine.field", (), split_fields
    )
    PARTITION_FIELDS: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.partition.fields", (), split_fields
    )
    KEY_GENERATOR_CLASS: Final[TableProperty[str]] = TableProperty(
        "hoodie.table.keygenerator.class", "", _text, empty_is_default=True
    )
    KEY_GENERATOR_TYPE: Final[TableProperty[str]] = TableProperty("hoodie.table.keygenerator.type", "", _text)
    HIVE_STYLE_PARTITIONING: Final[TableProperty[bool]] = TableProperty(
        "hoodie.datasource.write.hive_style_partitioning", False, _java_bool, empty_is_default=True
    )
    URL_ENCODE_PARTITIONING: Final[TableProperty[bool]] = TableProperty(
        "hoodie.datasource.write.partitionpath.urlencode", False, _java_bool, empty_is_default=True
    )
    POPULATE_META_FIELDS: Final[TableProperty[bool]] = TableProperty(
        "hoodie.populate.meta.fields", True, _java_bool, empty_is_default=True
    )
    BASE_FILE_FORMAT: Final[TableProperty[str]] = TableProperty(
        "hoodie.table.base.file.format", "PARQUET", _upper
    )
    LOG_FILE_FORMAT: Final[TableProperty[str]] = TableProperty(
        "hoodie.table.log.file.format", "HOODIE_LOG", _text
    )
    TIMELINE_TIMEZONE: Final[TableProperty[str]] = TableProperty(
        "hoodie.table.timeline.timezone", "LOCAL", _upper
    )
    RECORD_MERGE_MODE: Final[TableProperty[MergeMode | None]] = TableProperty(
        "hoodie.record.merge.mode", None, _merge_mode, empty_is_default=True
    )
    """Absent: derived from the payload class and the ordering fields."""
    PAYLOAD_CLASS: Final[TableProperty[str]] = TableProperty("hoodie.compaction.payload.class", "", _text)
    METADATA_PARTITIONS: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.metadata.partitions", (), split_fields
    )
    METADATA_PARTITIONS_INFLIGHT: Final[TableProperty[tuple[str, ...]]] = TableProperty(
        "hoodie.table.metadata.partitions.inflight", (), split_fields
    )
    DATABASE_NAME: Final[TableProperty[str]] = TableProperty("hoodie.database.name", "", _text)
    CREATE_SCHEMA: Final[TableProperty[str | None]] = TableProperty("hoodie.table.create.schema", None, _text)
    CHECKSUM: Final[TableProperty[str | None]] = TableProperty("hoodie.table.checksum", None, _text)
    """Checked by :func:`maintainer.hudi.config.properties.verify_checksum` (a Java long)."""

    @classmethod
    def entries(cls) -> tuple[TableProperty[object], ...]:
        """Every entry, in declaration order."""
        return tuple(value for value in vars(cls).values() if isinstance(value, TableProperty))


REQUIRED_PROPERTIES = (HudiTableConfig.NAME, HudiTableConfig.TYPE, HudiTableConfig.VERSION)
"""Keys Hudi writes in every ``hoodie.properties`` (``HoodieTableConfig.create``)."""
