"""What changed in the manifests since a baseline (the last applied plan's ``manifest.json``),
for the reviewer: each changed option of each table, classified as

* **destructive**: the next runs may delete more or protect less (less retention, a clean
  or rollback switched on, savepoints or readers removed, a gate raised, a metadata table
  to drop, a table that starts being maintained);
* **rewrite**: compaction settings (files are rewritten, nothing is lost);
* **metadata-only**: everything else (tags, descriptions, more retention, a table dropped from
  the project, which is then simply no longer maintained).

Pure: two mappings of table name -> resolved spec (``TableSpec.model_dump(mode="json")``), and
optionally where each option's value was written (``Project.sources``, kept in manifest.json as
``sources``), so that changes can be grouped by the source line that made them
(:func:`group_changes`): one line of a folder's ``_defaults.yml`` changes hundreds of tables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.catalog import ChangeKind, Classifier, installed
from maintainer.services.common.change_rules import always, as_number, more_is_destructive

LOCATION_FIELDS = frozenset({"manifest", "line"})
"""Where a table is written, not what it is: moving it to another file changes nothing."""


@dataclass(frozen=True, slots=True)
class SpecChange:
    """One option of one table, before and after (None: not set), and what kind of change."""

    table: str
    option: str
    before: Any
    after: Any
    kind: ChangeKind
    why: str
    source: str | None = None
    """Where the new value is written (``file:line``), ``default (was file:line)`` where a value
    was removed, the manifest file of a table added or removed, None when not known (a baseline
    or plan_meta.json of an older maintainer)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "option": self.option,
            "before": self.before,
            "after": self.after,
            "kind": self.kind.value,
            "why": self.why,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SpecChange:
        return cls(
            str(data["table"]),
            str(data["option"]),
            data.get("before"),
            data.get("after"),
            ChangeKind(data["kind"]),
            str(data.get("why", "")),
            None if data.get("source") is None else str(data["source"]),
        )


def _metadata_table(before: Any, after: Any) -> tuple[ChangeKind, str]:
    if after == "drop":
        return ChangeKind.DESTRUCTIVE, "the metadata table is to be dropped"
    return ChangeKind.REWRITE, "how the metadata table is kept in step"


TABLE_RULES: dict[str, Classifier] = {
    "path": always(ChangeKind.DESTRUCTIVE, "another table is maintained under this name"),
    "gates.max_delete_files": more_is_destructive("delete gate (files)"),
    "gates.max_delete_bytes": more_is_destructive("delete gate (bytes)"),
    "gates.max_compaction_bytes": more_is_destructive("compaction gate (bytes)"),
    "metadata_table": _metadata_table,
}
"""By option (dotted path), the rules of what is not a service's block; each service declares
those of its block (``ServiceDeclaration.change_rules``, ``other_changes``)."""


def rules() -> dict[str, Classifier]:
    """Every option's rule: the table's and the installed catalog's services'."""
    return {**TABLE_RULES, **installed().change_rules}


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping) and value:
        for key in sorted(value):
            yield from _flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, value


def _classify(option: str, before: Any, after: Any) -> tuple[ChangeKind, str]:
    rule = rules().get(option)
    if rule is not None:
        return rule(before, after)
    if option == "readers":
        return _readers(before, after)
    block = _block_of(option)
    if block is not None:
        otherwise = installed().other_changes.get(block)
        if otherwise is not None:
            return otherwise
        if after is None:
            return ChangeKind.METADATA, "service settings removed"
    return ChangeKind.METADATA, "does not change what is deleted"


def _block_of(option: str) -> str | None:
    """The service block an option is in (``clean.policy`` -> ``clean``), None outside one."""
    block = option.partition(".")[0]
    return block if block in installed().blocks else None


def _readers(before: Any, after: Any) -> tuple[ChangeKind, str]:
    def horizons(readers: Any) -> dict[str, float]:
        found = {}
        for reader in readers or ():
            value = as_number(reader.get("lag") if reader.get("lag") is not None else reader.get("keep"))
            found[str(reader.get("name"))] = value if value is not None else 0.0
        return found

    old, new = horizons(before), horizons(after)
    lost = sorted(name for name in old if name not in new or new[name] < old[name])
    if lost:
        return ChangeKind.DESTRUCTIVE, f"less protection for the readers {', '.join(lost)}"
    return ChangeKind.METADATA, "readers added or given more time"


Sources = Mapping[str, str]
"""Option (dotted path) -> where its value was written (``file:line:col``) or ``default``."""

_COLUMN = re.compile(r"(:\d+):\d+$")


def source_line(source: str) -> str:
    """``file:line`` of a ``file:line:col`` (a whole line is what a reviewer looks for)."""
    return _COLUMN.sub(r"\1", source)


def _source_of(option: str, sources: Sources) -> str | None:
    """Where ``option`` was written: its own entry, else the first of the values under it
    (``readers`` -> ``readers.0.name``); None when not known, ``default`` when not written."""
    found = sources.get(option)
    if found is None:
        under = sorted(key for key in sources if key.startswith(option + "."))
        found = sources[under[0]] if under else None
    return None if found is None else source_line(found)


def _change_source(option: str, old: Sources, new: Sources) -> str | None:
    now = _source_of(option, new)
    if now not in (None, "default"):
        return now
    was = _source_of(option, old)
    if was not in (None, "default"):
        return f"default (was {was})"
    return now


def _table_source(spec: Mapping[str, Any]) -> str | None:
    """The manifest file a table is listed in (not its line: the tables added to one file are
    one group, each on its own line)."""
    manifest = spec.get("manifest")
    return str(manifest) if manifest else None


def _table_changes(
    table: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    old_sources: Sources,
    new_sources: Sources,
) -> list[SpecChange]:
    old = {k: v for k, v in before.items() if k not in LOCATION_FIELDS and k != "readers"}
    new = {k: v for k, v in after.items() if k not in LOCATION_FIELDS and k != "readers"}
    flat_old, flat_new = dict(_flatten(old)), dict(_flatten(new))
    changes = []
    for option in sorted(set(flat_old) | set(flat_new)):
        was, now = flat_old.get(option), flat_new.get(option)
        if was != now:
            where = _change_source(option, old_sources, new_sources)
            changes.append(SpecChange(table, option, was, now, *_classify(option, was, now), where))
    if before.get("readers") != after.get("readers"):
        was, now = before.get("readers"), after.get("readers")
        where = _change_source("readers", old_sources, new_sources)
        changes.append(SpecChange(table, "readers", was, now, *_readers(was, now), where))
    return changes


def compare_specs(
    previous: Mapping[str, Mapping[str, Any]],
    current: Mapping[str, Mapping[str, Any]],
    previous_sources: Mapping[str, Sources] | None = None,
    current_sources: Mapping[str, Sources] | None = None,
) -> list[SpecChange]:
    """Every changed option of every table, tables in name order; a new table is one
    destructive change (its maintenance starts), a removed one a metadata-only change. With
    the sources of each side, each change says which line made it."""
    old_sources, new_sources = previous_sources or {}, current_sources or {}
    changes: list[SpecChange] = []
    for table in sorted(set(previous) | set(current)):
        if table not in previous:
            why = "a new table: its maintenance starts (cleans and rollbacks delete files)"
            where = _table_source(current[table])
            changes.append(SpecChange(table, "(table)", None, "added", ChangeKind.DESTRUCTIVE, why, where))
        elif table not in current:
            why = "no longer in the project: no longer maintained"
            where = _table_source(previous[table])
            changes.append(SpecChange(table, "(table)", "present", None, ChangeKind.METADATA, why, where))
        else:
            changes += _table_changes(
                table,
                previous[table],
                current[table],
                old_sources.get(table, {}),
                new_sources.get(table, {}),
            )
    return changes


KIND_ORDER = (ChangeKind.DESTRUCTIVE, ChangeKind.REWRITE, ChangeKind.METADATA)
"""Most severe first."""


@dataclass(frozen=True, slots=True)
class ChangeGroup:
    """The same change (option, before -> after, kind), made by the same source line, in
    every table of ``tables`` (name order)."""

    source: str | None
    option: str
    before: Any
    after: Any
    kind: ChangeKind
    why: str
    tables: tuple[str, ...]


def _value_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def group_changes(changes: Iterable[SpecChange]) -> list[ChangeGroup]:
    """One group per (source line, option, before -> after, kind, why): most severe first, then
    the most tables, then by source line."""
    grouped: dict[tuple[Any, ...], list[SpecChange]] = {}
    for change in changes:
        key = (change.source, change.option, _value_key(change.before), _value_key(change.after))
        grouped.setdefault((*key, change.kind, change.why), []).append(change)
    groups = [
        ChangeGroup(
            first.source,
            first.option,
            first.before,
            first.after,
            first.kind,
            first.why,
            tuple(sorted(c.table for c in members)),
        )
        for first, members in ((members[0], members) for members in grouped.values())
    ]
    return sorted(
        groups,
        key=lambda g: (KIND_ORDER.index(g.kind), -len(g.tables), g.source or "", g.option, g.tables),
    )


def maintenance_changes(changes: Iterable[SpecChange]) -> dict[ChangeKind, int]:
    """How many tables the changes alter the maintenance of, by their most severe kind
    (destructive, else rewrite); metadata-only changes alter nothing."""
    worst: dict[str, ChangeKind] = {}
    for change in changes:
        if change.kind is ChangeKind.METADATA:
            continue
        known = worst.get(change.table)
        if known is None or KIND_ORDER.index(change.kind) < KIND_ORDER.index(known):
            worst[change.table] = change.kind
    return {kind: n for kind in KIND_ORDER if (n := sum(1 for k in worst.values() if k is kind))}


TABLES_NAMED = 3
"""A group names its tables up to this many, else its first and last (plan_meta.json has all)."""


def table_range(tables: tuple[str, ...]) -> str:
    """The tables of a group in few words: all of them up to TABLES_NAMED, else the first and
    the last in name order (every name is in plan_meta.json)."""
    if len(tables) <= TABLES_NAMED:
        return ", ".join(tables)
    return f"{tables[0]} … {tables[-1]}"
