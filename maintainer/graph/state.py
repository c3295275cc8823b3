"""``state:`` selection: compare the project with the ``manifest.json`` of an earlier compile.

``maintainer compile`` writes, per table, ``checksum: {name: sha256, checksum: ...}``: the
sha256 of the canonical JSON of the resolved spec (:func:`table_checksum`), without the
fields that only say where the table is written (its manifest file and line), so moving a
table to another file does not modify it. ``--state DIR`` reads ``DIR/manifest.json``
(:func:`read_state`); ``state:modified`` selects the tables whose checksum differs or that
are new, ``state:new`` the new ones, ``state:unmodified`` and ``state:old`` the others.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from maintainer.errors import UsageError
from maintainer.graph.manifest import CHECKSUM_NAME, MANIFEST_JSON, Checksum, parse_baseline
from maintainer.project.models import TableSpec

STATE_MANIFEST = MANIFEST_JSON
STATE_VALUES = ("modified", "new", "unmodified", "old")
LOCATION_FIELDS = frozenset({"manifest", "line"})
"""TableSpec fields that say where a table is written, not what it is: not in the checksum."""


def table_checksum(spec: TableSpec) -> str:
    """sha256 of the canonical JSON (sorted keys, no spaces) of the resolved spec."""
    data = spec.as_json(exclude=frozenset(LOCATION_FIELDS))
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def checksum_entry(spec: TableSpec) -> Checksum:
    """The ``checksum`` of a table in manifest.json, shaped as dbt's."""
    return Checksum(CHECKSUM_NAME, table_checksum(spec))


@dataclass(frozen=True, slots=True)
class StateComparison:
    """The tables of an earlier manifest.json (name -> checksum) against the current ones."""

    path: str
    previous: Mapping[str, str]
    current: Mapping[str, str]

    def tables(self, value: str) -> set[str]:
        if value == "new":
            return {name for name in self.current if name not in self.previous}
        if value == "old":
            return {name for name in self.current if name in self.previous}
        same = {name for name, checksum in self.current.items() if self.previous.get(name) == checksum}
        return same if value == "unmodified" else set(self.current) - same


def read_state(state_dir: Path | str, current: Mapping[str, str]) -> StateComparison:
    """``state_dir/manifest.json`` (compiled, or an applied state) compared with ``current``
    (table name -> checksum); a file not in the shape this maintainer writes is refused."""
    path = Path(state_dir) / STATE_MANIFEST
    hint = "point --state at the folder of a manifest.json written by `maintainer compile` (e.g. target/)"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"--state: {path} does not exist", where=str(path), hint=hint) from None
    except OSError as exc:
        raise UsageError(f"--state: cannot read {path}: {exc}", where=str(path), hint=hint) from None
    baseline = parse_baseline(
        raw,
        what=f"--state: {path}",
        where=str(path),
        error=UsageError,
        hint="write it again with `maintainer compile --output` (or point --state at a state "
        "folder's last_applied/) with this version",
    )
    previous = {name: table.checksum.checksum for name, table in baseline.tables.items()}
    return StateComparison(str(path), previous, dict(current))
