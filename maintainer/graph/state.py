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
from typing import Any

from maintainer.errors import UsageError
from maintainer.project.models import TableSpec

STATE_MANIFEST = "manifest.json"
CHECKSUM_NAME = "sha256"
STATE_VALUES = ("modified", "new", "unmodified", "old")
LOCATION_FIELDS = frozenset({"manifest", "line"})
"""TableSpec fields that say where a table is written, not what it is: not in the checksum."""


def table_checksum(spec: TableSpec) -> str:
    """sha256 of the canonical JSON (sorted keys, no spaces) of the resolved spec."""
    data = spec.model_dump(mode="json", exclude=set(LOCATION_FIELDS))
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def checksum_entry(spec: TableSpec) -> dict[str, str]:
    """The ``checksum`` of a table in manifest.json, shaped as dbt's."""
    return {"name": CHECKSUM_NAME, "checksum": table_checksum(spec)}


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
    """``state_dir/manifest.json`` compared with ``current`` (table name -> checksum)."""
    path = Path(state_dir) / STATE_MANIFEST
    hint = "point --state at the folder of a manifest.json written by `maintainer compile` (e.g. target/)"
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"--state: {path} does not exist", where=str(path), hint=hint) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--state: cannot read {path}: {exc}", where=str(path), hint=hint) from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"--state: {path} is not valid JSON: {exc}", where=str(path), hint=hint) from None
    return StateComparison(str(path), _previous_checksums(data, path), dict(current))


def _previous_checksums(data: Any, path: Path) -> dict[str, str]:
    tables = data.get("tables") if isinstance(data, dict) else None
    if not isinstance(tables, dict):
        raise UsageError(
            f"--state: {path} is not a maintainer manifest.json (no 'tables' mapping)",
            where=str(path),
            hint="write it with `maintainer compile` (target/manifest.json)",
        )
    checksums: dict[str, str] = {}
    for name, table in tables.items():
        entry = table.get("checksum") if isinstance(table, dict) else None
        checksum = entry.get("checksum") if isinstance(entry, dict) else None
        if not isinstance(checksum, str) or (isinstance(entry, dict) and entry.get("name") != CHECKSUM_NAME):
            raise UsageError(
                f"--state: table '{name}' in {path} has no {CHECKSUM_NAME} checksum",
                where=str(path),
                hint="the manifest.json comes from an older maintainer: compile it again with this version",
            )
        checksums[str(name)] = checksum
    return checksums
