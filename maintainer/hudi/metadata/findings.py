"""One disagreement between an index partition of the metadata table and the data it indexes:
the metadata partition, where in the data table (partition and file, or a key), what is wrong
and what to do. A damaged index is never repaired in place: Hudi rebuilds it from the data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

REBUILD_HINT = (
    "the index disagrees with the data: set `metadata_table: drop` for this table (the next Hudi "
    "writer rebuilds the metadata table from the data), or restore the metadata table from a backup"
)
SHOWN = 20
"""Findings named per metadata partition; the rest are counted."""


@dataclass(frozen=True, slots=True)
class IndexFinding:
    partition: str
    """The metadata partition (``column_stats``, ``secondary_index_<name>``, ...)."""
    where: str
    """The data partition and file (``region=us/<file>``), or the key concerned."""
    problem: str
    hint: str = REBUILD_HINT

    def describe(self) -> str:
        return f"{self.partition}: {self.where}: {self.problem} ({self.hint})"


def data_file(partition: str, name: str) -> str:
    """``<partition>/<file>`` as the check names data files."""
    return f"{partition or '(non-partitioned)'}/{name}"


def described(findings: Sequence[IndexFinding]) -> list[str]:
    """Each finding, at most :data:`SHOWN` per metadata partition, then how many more there are."""
    lines: list[str] = []
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.partition] = counts.get(finding.partition, 0) + 1
        if counts[finding.partition] <= SHOWN:
            lines.append(finding.describe())
    for partition, count in counts.items():
        if count > SHOWN:
            lines.append(f"{partition}: {count - SHOWN} more disagreement(s) like the above ({REBUILD_HINT})")
    return lines
