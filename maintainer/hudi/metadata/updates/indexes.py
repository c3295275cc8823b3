"""Which indexes a data table keeps in its metadata table, and how: the completed metadata
partitions (``hoodie.table.metadata.partitions``), the columns of the column stats index (its
``sourceFields`` in ``.hoodie/.index_defs/index.json``, else Hudi's defaults for the schema) and
the index versions (an index definition's ``version``, else V2 from table version 9 on, V1 before:
``existingIndexVersionOrDefault``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.metadata.partitions import MetadataPartitionKind, metadata_partition
from maintainer.hudi.metadata.updates.schema_types import column_metas, default_columns
from maintainer.hudi.metadata.updates.values import IndexVersion, ValueMeta
from maintainer.storage import Storage
from maintainer.storage.limits import MAX_INSTANT_FILE_BYTES, loads_bounded, read_capped

INDEX_DEFS_PATH_KEY = "hoodie.table.index.defs.path"
DEFAULT_INDEX_DEFS_PATH = ".hoodie/.index_defs/index.json"
_INDEX_HINT = "the table's index definitions are damaged: restore the file from a backup of the table"
COLUMN_STATS = "column_stats"
PARTITION_STATS = "partition_stats"
BLOOM_FILTERS = "bloom_filters"
DEFAULT_BLOOM_FILTER_TYPE = "DYNAMIC_V0"
"""``hoodie.bloom.index.filter.type``: the ``type`` of every bloom filter record Hudi writes."""
FIRST_V2_TABLE_VERSION = 9


@dataclass(frozen=True)
class TableIndexes:
    """What a write must keep up to date in the metadata table."""

    partitions: frozenset[str]
    """The completed metadata partitions (``files`` always among them)."""
    columns: tuple[str, ...]
    """The columns of the column stats and partition stats indexes, in Hudi's order."""
    column_stats_version: IndexVersion
    partition_stats_version: IndexVersion
    column_types: Mapping[str, ValueMeta] = field(default_factory=dict)
    """V2: each column's value type from the table schema (partition stats are typed by it)."""
    bloom_filter_type: str = DEFAULT_BLOOM_FILTER_TYPE

    def has(self, partition: str) -> bool:
        return partition in self.partitions


def table_indexes(storage: Storage, config: TableConfig, schema_json: str | None) -> TableIndexes:
    """The indexes of the table at ``storage`` with ``config``; ``schema_json`` is the table's Avro
    schema with or without Hudi's meta fields (the writer schema of the commit being indexed)."""
    where = storage.uri(".hoodie/hoodie.properties")
    _check_partitions(config, where)
    definitions = read_index_definitions(storage, config)
    default = IndexVersion.V2 if config.version >= FIRST_V2_TABLE_VERSION else IndexVersion.V1
    column_stats = definitions.get(COLUMN_STATS, {})
    columns = tuple(column_stats.get("sourceFields") or ())
    if not columns and schema_json is not None:
        columns = default_columns(schema_json, config.populate_meta_fields)
    partition_version = _version(definitions.get(PARTITION_STATS, {}), default)
    types = column_metas(schema_json, columns) if schema_json is not None else {}
    return TableIndexes(
        partitions=frozenset(config.metadata_partitions),
        columns=columns,
        column_stats_version=_version(column_stats, default),
        partition_stats_version=partition_version,
        column_types=types,
    )


def _check_partitions(config: TableConfig, where: str) -> None:
    if config.metadata_partitions_inflight:
        raise UnsupportedTableError(
            f"metadata partitions are being built ({', '.join(config.metadata_partitions_inflight)})",
            where=where,
            hint="let Hudi's indexer finish building them first",
        )
    for name in config.metadata_partitions:
        kind = metadata_partition(name, where).kind
        if kind is MetadataPartitionKind.EXPRESSION_INDEX:
            raise UnsupportedTableError(
                f"the table has an expression index ({name}); maintainer cannot evaluate expressions",
                where=where,
                hint="leave this table's metadata table to Hudi's own services",
            )


def read_index_definitions(storage: Storage, config: TableConfig) -> dict[str, Mapping[str, Any]]:
    """Index name -> definition, from the table's index definitions file (none: empty)."""
    path = config.raw.get(INDEX_DEFS_PATH_KEY) or DEFAULT_INDEX_DEFS_PATH
    if not storage.exists(path):
        return {}
    where = storage.uri(path)
    raw = read_capped(
        storage, path, MAX_INSTANT_FILE_BYTES, what="index definitions file", error=CorruptFileError
    )
    document = loads_bounded(
        raw, what="the index definitions file", where=where, error=CorruptFileError, hint=_INDEX_HINT
    )
    try:
        definitions = document.get("indexDefinitions") or {}
    except AttributeError as exc:
        raise CorruptFileError(
            f"index definitions are not valid JSON ({exc})", where=storage.uri(path)
        ) from exc
    return {str(name): value for name, value in definitions.items() if isinstance(value, Mapping)}


def _version(definition: Mapping[str, Any], default: IndexVersion) -> IndexVersion:
    text = definition.get("version")
    if text is None:
        return default
    try:
        return IndexVersion(str(text))
    except ValueError:
        raise UnsupportedTableError(f"index version {text!r} is not known (V1 and V2 are)") from None
