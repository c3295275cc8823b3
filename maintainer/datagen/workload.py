"""The generated workload, independent of how it is written: which rows each commit inserts,
updates and deletes, in which file group they live, and what a correct reader must return.

Deterministic for a seed. Records are trips-like: ``uuid`` (record key), ``ts`` (ordering
field), ``rider``, ``driver``, ``fare``, ``city`` (partition field when partitioned).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

RECORD_KEY_FIELD = "uuid"
ORDERING_FIELD = "ts"
PARTITION_FIELD = "city"
BASE_TS = 1_700_000_000_000

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


@dataclass(frozen=True, slots=True)
class RowChange:
    """One row change of a commit: ``row`` is None for a delete."""

    key: str
    partition: str
    file_group: int
    row: dict[str, Any] | None
    ordering: int
    existed: bool = False
    """True for an update or delete of a key already in the table."""


@dataclass(frozen=True)
class CommitWork:
    """Everything one commit changes, grouped by (partition, file group index)."""

    index: int
    changes: dict[tuple[str, int], list[RowChange]] = field(default_factory=dict)

    @property
    def row_count(self) -> int:
        return sum(len(c) for c in self.changes.values())


def _key(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class Workload:
    """Generates commits one by one and keeps the expected table contents."""

    def __init__(self, spec: WorkloadSpec) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self.live: dict[str, tuple[str, int, dict[str, Any]]] = {}
        self.partitions = spec.partition_names()
        self._ts = BASE_TS

    def _next_ts(self) -> int:
        self._ts += 1
        return self._ts

    def _row(self, key: str, partition: str) -> dict[str, Any]:
        rng = self.rng
        city = partition if partition else rng.choice(["san_francisco", "chennai", "sao_paulo"])
        return {
            "ts": self._next_ts(),
            "uuid": key,
            "rider": f"rider-{rng.randrange(1000):03d}",
            "driver": f"driver-{rng.randrange(1000):03d}",
            "fare": round(rng.uniform(5, 100), 2),
            "city": city,
        }

    def _place(self) -> tuple[str, int]:
        return self.rng.choice(self.partitions), self.rng.randrange(self.spec.file_groups)

    def next_commit(self, index: int) -> CommitWork:
        """The next commit: inserts only for the first, then updates, deletes and inserts."""
        work = CommitWork(index)
        total = self.spec.rows_per_commit
        updates = deletes = 0
        if index > 0 and self.live:
            updates = min(int(total * self.spec.update_ratio), len(self.live))
            deletes = min(int(total * self.spec.delete_ratio), len(self.live) - updates)
        chosen = self.rng.sample(sorted(self.live), updates + deletes) if updates + deletes else []
        for key in chosen[:updates]:
            partition, group, _ = self.live[key]
            row = self._row(key, partition)
            self._record(work, RowChange(key, partition, group, row, row["ts"], existed=True))
        for key in chosen[updates:]:
            partition, group, _ = self.live[key]
            self._record(work, RowChange(key, partition, group, None, self._next_ts(), existed=True))
        for _ in range(total - updates - deletes):
            partition, group = self._place()
            key = _key(self.rng)
            row = self._row(key, partition)
            self._record(work, RowChange(key, partition, group, row, row["ts"]))
        return work

    def _record(self, work: CommitWork, change: RowChange) -> None:
        work.changes.setdefault((change.partition, change.file_group), []).append(change)

    def apply(self, work: CommitWork) -> None:
        """Mark a commit as committed: the expected contents follow it."""
        for changes in work.changes.values():
            for change in changes:
                if change.row is None:
                    self.live.pop(change.key, None)
                else:
                    self.live[change.key] = (change.partition, change.file_group, change.row)

    def expected_rows(self) -> list[dict[str, Any]]:
        return [dict(row) for _, _, row in sorted(self.live.values(), key=lambda v: v[2]["uuid"])]

    def commits(self) -> Iterator[CommitWork]:
        for index in range(self.spec.commits):
            yield self.next_commit(index)
