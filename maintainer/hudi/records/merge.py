"""Merging a file slice: base-file rows and log records, by record key, with the table's
merge semantics.

* commit-time ordering: a later write wins, a delete deletes;
* event-time ordering: the record with the greater ordering value wins, a later write wins
  ties; a delete without an ordering value (or with Hudi's default 0) always deletes, one with
  a value deletes only records that do not order after it.

As Hudi does, the log is combined first (its items in log order, per key), and each key's
combined log entry is then merged with the base row of that key: so a natural delete followed by
an older record leaves the base row if it orders after that record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from maintainer.hudi.config.properties import MergeMode, TableConfig

RECORD_KEY_COLUMN = "_hoodie_record_key"
META_COLUMNS = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)


@dataclass(frozen=True, slots=True)
class LogRecords:
    """The records of one data block (as dicts), written by ``instant_time``."""

    instant_time: str
    records: Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class LogDeletes:
    """The deletes of one delete block: (record key, ordering value or None)."""

    instant_time: str
    deletes: Sequence[tuple[str, Any]]


LogItem = LogRecords | LogDeletes


@dataclass(frozen=True, slots=True)
class MergeRules:
    """How records are keyed and ordered in one table."""

    mode: MergeMode
    ordering_field: str | None
    record_key_fields: tuple[str, ...]
    use_meta_key: bool

    @classmethod
    def for_table(cls, config: TableConfig) -> MergeRules:
        ordering = config.ordering_fields[0] if config.ordering_fields else None
        mode = config.merge_mode if ordering else MergeMode.COMMIT_TIME_ORDERING
        return cls(mode, ordering, config.record_key_fields, config.populate_meta_fields)

    def key_of(self, record: Mapping[str, Any]) -> str:
        if self.use_meta_key and record.get(RECORD_KEY_COLUMN) is not None:
            return str(record[RECORD_KEY_COLUMN])
        return format_record_key(self.record_key_fields, record)

    @property
    def event_time(self) -> bool:
        return self.mode is MergeMode.EVENT_TIME_ORDERING and self.ordering_field is not None


def format_record_key(fields: Sequence[str], record: Mapping[str, Any]) -> str:
    """Hudi's record key: the value for one field, ``f1:v1,f2:v2`` for several."""
    if len(fields) == 1:
        return _key_text(record.get(fields[0]))
    return ",".join(f"{name}:{_key_text(record.get(name))}" for name in fields)


def _key_text(value: Any) -> str:
    if value is None:
        return "__null__"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def is_natural_delete(ordering: Any) -> bool:
    """A delete without an ordering value (or Hudi's default 0) deletes whatever it meets."""
    return ordering is None or ordering == 0


def orders_after(candidate: Any, current: Any) -> bool:
    """True when ``candidate`` should replace ``current`` (ties go to the later write)."""
    if current is None:
        return True
    if candidate is None:
        return False
    try:
        return bool(candidate >= current)
    except TypeError:
        return str(candidate) >= str(current)


@dataclass(slots=True)
class _LogEntry:
    """The combined log state of one key: its latest record, or a delete."""

    ordering: Any
    record: Mapping[str, Any] | None = None

    @property
    def deleted(self) -> bool:
        return self.record is None


class _SliceMerger:
    """Hudi's two steps: log records are combined among themselves in log order, then the
    combined entry of each key is merged with the base row of that key."""

    def __init__(self, rules: MergeRules) -> None:
        self.rules = rules
        self.log: dict[str, _LogEntry] = {}

    def _replaces(self, ordering: Any, current: Any) -> bool:
        return not self.rules.event_time or orders_after(ordering, current)

    def add_records(self, records: Iterable[Mapping[str, Any]]) -> None:
        field = self.rules.ordering_field
        for record in records:
            key = self.rules.key_of(record)
            ordering = record.get(field) if field else None
            current = self.log.get(key)
            if current is None or self._replaces(ordering, current.ordering):
                self.log[key] = _LogEntry(ordering, record)

    def add_deletes(self, deletes: Iterable[tuple[str, Any]]) -> None:
        for key, ordering in deletes:
            natural = is_natural_delete(ordering)
            current = self.log.get(key)
            if current is not None and not natural and not self._replaces(ordering, current.ordering):
                continue
            self.log[key] = _LogEntry(None if natural else ordering)

    def _base_wins(self, entry: _LogEntry, base_ordering: Any) -> bool:
        if entry.deleted and entry.ordering is None:
            return False  # a natural delete always deletes
        return not self._replaces(entry.ordering, base_ordering)

    def result(self, base: pa.Table | None, schema: pa.Schema) -> pa.Table:
        kept: list[int] = []
        if base is not None:
            keys = _base_keys(base, self.rules)
            orderings = _column(base, self.rules.ordering_field, base.num_rows)
            for index, (key, ordering) in enumerate(zip(keys, orderings, strict=True)):
                entry = self.log.get(key)
                if entry is None or self._base_wins(entry, ordering):
                    kept.append(index)
                    self.log.pop(key, None)
        log_rows = [dict(e.record) for e in self.log.values() if e.record is not None]
        parts = []
        if base is not None and kept:
            parts.append(base.take(pa.array(kept, type=pa.int64())).cast(schema))
        if log_rows:
            parts.append(pa.Table.from_pylist(log_rows, schema=schema))
        return pa.concat_tables(parts) if parts else schema.empty_table()


def _base_keys(base: pa.Table, rules: MergeRules) -> list[str]:
    if rules.use_meta_key and RECORD_KEY_COLUMN in base.column_names:
        return [str(k) for k in base.column(RECORD_KEY_COLUMN).to_pylist()]
    rows = base.select(list(rules.record_key_fields)).to_pylist()
    return [format_record_key(rules.record_key_fields, row) for row in rows]


def _column(table: pa.Table, name: str | None, rows: int) -> list[Any]:
    if name is None or name not in table.column_names:
        return [None] * rows
    return list(table.column(name).to_pylist())


def merge_file_slice(
    base: pa.Table | None, log_items: Sequence[LogItem], rules: MergeRules, schema: pa.Schema
) -> pa.Table:
    """The merged rows of one file slice, in ``schema`` (base rows first, then log winners)."""
    merger = _SliceMerger(rules)
    for item in log_items:
        if isinstance(item, LogRecords):
            merger.add_records(item.records)
        else:
            merger.add_deletes(item.deletes)
    return merger.result(base, schema)
