"""The generated workload, independent of how it is written: which rows each commit inserts,
updates and deletes, in which file group they live, and what a correct reader must return.

Deterministic for a seed and vectorised (numpy + Arrow), so millions of rows generate in
seconds. Records are trips-like: ``uuid`` (record key), ``ts`` (ordering field), ``rider``,
``driver``, ``fare``, ``city`` (the partition field when partitioned). A key's partition and
file group follow from its id, so they never change across updates.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

RECORD_KEY_FIELD = "uuid"
ORDERING_FIELD = "ts"
PARTITION_FIELD = "city"
OP_COLUMN = "_op"
BASE_TS = 1_700_000_000_000
NON_PARTITIONED_CITIES = ("san_francisco", "chennai", "sao_paulo")

DATA_SCHEMA = pa.schema(
    [
        pa.field("ts", pa.int64()),
        pa.field("uuid", pa.string()),
        pa.field("rider", pa.string()),
        pa.field("driver", pa.string()),
        pa.field("fare", pa.float64()),
        pa.field("city", pa.string()),
    ]
)
CHANGE_SCHEMA = DATA_SCHEMA.append(pa.field(OP_COLUMN, pa.int8()))


class Op(IntEnum):
    INSERT = 0
    UPDATE = 1
    DELETE = 2


@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    partitions: int = 3
    file_groups: int = 2
    commits: int = 5
    rows_per_commit: int = 100
    update_ratio: float = 0.3
    delete_ratio: float = 0.05
    seed: int = 42

    def partition_names(self) -> list[str]:
        if self.partitions == 0:
            return [""]
        return [f"city_{index:04d}" for index in range(self.partitions)]


@dataclass(frozen=True)
class CommitWork:
    """What one commit changes, per (partition value, file group index): a table in
    CHANGE_SCHEMA (data columns + ``_op``; a delete row carries its key and ordering value)."""

    index: int
    changes: dict[tuple[str, int], pa.Table] = field(default_factory=dict)

    @property
    def row_count(self) -> int:
        return sum(t.num_rows for t in self.changes.values())


def _labels(prefix: str, values: np.ndarray, width: int) -> pa.Array:
    text = pc.utf8_lpad(pa.array(values).cast(pa.string()), width, "0")
    return pc.binary_join_element_wise(pa.scalar(prefix), text, "")


def record_keys(ids: np.ndarray, seed: int) -> pa.Array:
    """Deterministic uuid-shaped keys for key ids (hex of a seeded mix of the id)."""
    mixed = (ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(seed & 0xFFFFFFFF)
    high = pc.utf8_lpad(pa.array(mixed >> np.uint64(32)).cast(pa.string()), 10, "0")
    low = pc.utf8_lpad(pa.array(mixed & np.uint64(0xFFFFFFFF)).cast(pa.string()), 10, "0")
    return pc.binary_join_element_wise(high, low, "-")


class Workload:
    """Generates commits one by one and keeps the expected table contents (columnar)."""

    def __init__(self, spec: WorkloadSpec) -> None:
        self.spec = spec
        self.rng = np.random.default_rng(spec.seed)
        self.partitions = spec.partition_names()
        self.next_id = 0
        self._ts = BASE_TS
        capacity = spec.commits * spec.rows_per_commit
        self.alive = np.zeros(capacity, dtype=bool)
        self._row_index = np.full(capacity, -1, dtype=np.int64)
        """key id -> row of its latest version in the concatenation of ``_versions``"""
        self._versions: list[pa.Table] = []
        self._stored = 0

    # -- placement -----------------------------------------------------------------------
    def placement(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        partitions = len(self.partitions)
        return ids % partitions, (ids // partitions) % self.spec.file_groups

    def _timestamps(self, count: int) -> np.ndarray:
        values = np.arange(self._ts + 1, self._ts + 1 + count, dtype=np.int64)
        self._ts += count
        return values

    def _data(self, ids: np.ndarray) -> dict[str, pa.Array]:
        partition_index, _ = self.placement(ids)
        count = len(ids)
        if self.spec.partitions:
            cities = np.array(self.partitions, dtype=object)[partition_index]
        else:
            cities = np.array(NON_PARTITIONED_CITIES, dtype=object)[self.rng.integers(0, 3, count)]
        return {
            "ts": pa.array(self._timestamps(count)),
            "uuid": record_keys(ids, self.spec.seed),
            "rider": _labels("rider-", self.rng.integers(0, 1000, count), 3),
            "driver": _labels("driver-", self.rng.integers(0, 1000, count), 3),
            "fare": pa.array(np.round(self.rng.uniform(5, 100, count), 2)),
            "city": pa.array(cities.tolist(), pa.string()),
        }

    def _change_table(self, ids: np.ndarray, op: np.ndarray, data: dict[str, pa.Array]) -> pa.Table:
        return pa.table({**data, OP_COLUMN: pa.array(op.astype(np.int8))}, schema=CHANGE_SCHEMA)

    # -- commits -------------------------------------------------------------------------
    def next_commit(self, index: int) -> tuple[CommitWork, np.ndarray, pa.Table]:
        """The next commit (inserts only for the first), with its key ids and change rows."""
        total = self.spec.rows_per_commit
        live = np.flatnonzero(self.alive)
        updates = deletes = 0
        if index > 0 and len(live):
            updates = min(int(total * self.spec.update_ratio), len(live))
            deletes = min(int(total * self.spec.delete_ratio), len(live) - updates)
        chosen = self.rng.choice(live, updates + deletes, replace=False) if updates + deletes else live[:0]
        inserted = np.arange(self.next_id, self.next_id + total - updates - deletes)
        self.next_id += len(inserted)
        ids = np.concatenate([chosen, inserted]).astype(np.int64)
        op = np.concatenate(
            [np.full(updates, Op.UPDATE), np.full(deletes, Op.DELETE), np.full(len(inserted), Op.INSERT)]
        )
        rows = self._change_table(ids, op, self._data(ids))
        return self._split(index, ids, rows), ids, rows

    def _split(self, index: int, ids: np.ndarray, rows: pa.Table) -> CommitWork:
        partition_index, group = self.placement(ids)
        work = CommitWork(index)
        keys = partition_index * self.spec.file_groups + group
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        bounds = np.flatnonzero(np.diff(sorted_keys)) + 1
        for chunk in np.split(order, bounds):
            if len(chunk):
                p, g = partition_index[chunk[0]], group[chunk[0]]
                work.changes[(self.partitions[p], int(g))] = rows.take(pa.array(chunk))
        return work

    def apply(self, ids: np.ndarray, rows: pa.Table) -> None:
        """Mark a commit as committed: the expected contents follow it."""
        op = rows.column(OP_COLUMN).to_numpy()
        self.alive[ids[op == Op.DELETE]] = False
        written = op != Op.DELETE
        self.alive[ids[written]] = True
        self._store(ids[written], rows.filter(pa.array(written)).select(DATA_SCHEMA.names))

    def _store(self, ids: np.ndarray, rows: pa.Table) -> None:
        self._versions.append(rows)
        self._row_index[ids] = np.arange(self._stored, self._stored + len(ids))
        self._stored += len(ids)

    def expected_table(self) -> pa.Table:
        """The rows a reader must return now, sorted by record key."""
        live = np.flatnonzero(self.alive)
        if not len(live):
            return DATA_SCHEMA.empty_table()
        rows = pa.concat_tables(self._versions).take(pa.array(self._row_index[live]))
        return rows.sort_by(RECORD_KEY_FIELD)

    def expected_rows(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.expected_table().to_pylist()
        return rows

    def commits(self) -> Iterator[tuple[CommitWork, np.ndarray, pa.Table]]:
        for index in range(self.spec.commits):
            yield self.next_commit(index)
