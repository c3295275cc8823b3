"""The base side of a slice merge: each base row group joined with the folded log entries
(Hudi's merge handle: a base record whose key is in the log is combined with the log's
merged record; the log entries no base record matched are inserts).

Per matched base row: with commit-time ordering the log entry wins; with event-time ordering a
log record wins when its ordering value is not lower than the base row's (or either has none
where Hudi would take the log), a delete without ordering value always deletes, one with a
value deletes when it is not lower. Everything is Arrow compute over one row group at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from maintainer.executors.common.keys import record_keys
from maintainer.executors.common.log_state import IS_DELETE, ORDERING, ROW, LogState
from maintainer.hudi.records.merge import MergeRules


@dataclass
class MergeCounts:
    """What the merge did, for the write stat."""

    updated: int = 0
    deleted: int = 0
    inserted: int = 0
    kept: int = 0


@dataclass
class SliceMerger:
    """Joins base row groups with one slice's :class:`LogState` (row groups in any order)."""

    state: LogState
    rules: MergeRules
    counts: MergeCounts = field(default_factory=MergeCounts)

    def __post_init__(self) -> None:
        self._keys = self.state.keys
        self._consumed = np.zeros(len(self._keys), dtype=bool)
        winners = self.state.winners
        self._is_delete = winners.column(IS_DELETE).combine_chunks()
        self._ordering = winners.column(ORDERING).combine_chunks()
        self._rows = winners.column(ROW).combine_chunks()

    def merge_row_group(self, rows: pa.Table) -> pa.Table:
        """The rows to write for one base row group (conformed to the writer schema)."""
        if len(self._keys) == 0 or rows.num_rows == 0:
            self.counts.kept += rows.num_rows
            return rows
        positions = pc.index_in(record_keys(rows, self.rules), value_set=self._keys)
        matched = positions.is_valid()
        if not pc.any(matched).as_py():
            self.counts.kept += rows.num_rows
            return rows
        hit = positions.filter(matched)
        self._consumed[hit.to_numpy(zero_copy_only=False)] = True
        wins = self._log_wins(rows, positions, matched)
        log_deletes = pc.fill_null(pc.take(self._is_delete, positions), False)
        updates = pc.and_(wins, pc.invert(log_deletes))
        kept = rows.filter(pc.invert(wins))
        update_rows = self.state.records.take(pc.take(self._rows, positions.filter(updates)))
        self.counts.kept += kept.num_rows
        self.counts.updated += update_rows.num_rows
        self.counts.deleted += pc.sum(pc.and_(wins, log_deletes)).as_py() or 0
        return pa.concat_tables([kept, update_rows]) if update_rows.num_rows else kept

    def _log_wins(self, rows: pa.Table, positions: pa.Array, matched: pa.Array) -> pa.Array:
        if not self.rules.event_time:
            return matched
        field_name = self.rules.ordering_field
        log_ordering = pc.take(self._ordering, positions)
        if field_name is None or field_name not in rows.column_names:
            return matched
        base_ordering = rows.column(field_name).combine_chunks()
        if base_ordering.type != log_ordering.type:
            base_ordering = base_ordering.cast(log_ordering.type, safe=False)
        natural_delete = pc.and_(pc.take(self._is_delete, positions), log_ordering.is_null())
        not_lower = pc.fill_null(pc.greater_equal(log_ordering, base_ordering), False)
        decides = pc.or_(pc.or_(base_ordering.is_null(), natural_delete), not_lower)
        return pc.and_(matched, pc.fill_null(decides, False))

    def inserts(self) -> pa.Table:
        """Log records whose key no base row had (call after every row group)."""
        unmatched = pa.array(~self._consumed)
        keep = pc.and_(unmatched, pc.invert(self._is_delete))
        rows = self.state.records.take(pc.take(self._rows, pc.indices_nonzero(keep)))
        self.counts.inserted += rows.num_rows
        return rows
