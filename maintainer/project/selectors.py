"""``selectors.yml``: named selections at the project root, as in dbt.

.. code-block:: yaml

    selectors:
      - name: nightly
        description: what the nightly job maintains
        definition: "tag:nightly,+orders"          # a string: the --select grammar
      - name: core_but_archive
        definition:
          union:
            - method: tag
              value: core
              parents: true                        # like +tag:core (children: true, x+;
            - selector: nightly                    #   parents_depth/children_depth: N, N+x/x+N;
            - exclude:                             #   childrens_parents: true, @x)
                - service:archive

A definition is a string in the ``--select`` grammar or dbt's mapping form: ``union`` or
``intersection`` of definitions (each may carry one ``exclude:`` item, whose definitions are
removed from the result), ``{method: M, value: V, ...}`` with optional graph operators, or the
shorthand ``{M: V}``. ``--selector NAME`` uses one; ``selector:NAME`` inside ``--select`` too.

This module only reads and checks the file's shape (with file:line for every problem); the
selection itself, and the grammar of strings and methods, live in ``maintainer.graph.select``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from maintainer.errors import ManifestError
from maintainer.project.issues import did_you_mean
from maintainer.project.yamlsrc import Path_, YamlDocument, load_yaml_file

SELECTORS_FILE = "selectors.yml"
_SELECTOR_KEYS = ("name", "description", "definition", "default")
_METHOD_KEYS = (
    "method",
    "value",
    "parents",
    "children",
    "parents_depth",
    "children_depth",
    "childrens_parents",
)
_OPERATOR_KEYS = ("union", "intersection")
DefinitionKind = Literal["expression", "union", "intersection", "method"]


@dataclass(frozen=True, slots=True)
class SelectorDefinition:
    """One node of a definition tree; ``where`` is its file:line:col."""

    kind: DefinitionKind
    where: str
    expression: str = ""
    """kind ``expression``: a string in the --select grammar."""
    items: tuple[SelectorDefinition, ...] = ()
    """kind ``union``/``intersection``: the definitions combined."""
    exclude: tuple[SelectorDefinition, ...] = ()
    """kind ``union``/``intersection``: definitions removed from the result."""
    method: str = ""
    value: str = ""
    parents: int | None = None
    """kind ``method``: None for no ancestors, -1 for all, N for N table hops."""
    children: int | None = None
    childrens_parents: bool = False


@dataclass(frozen=True, slots=True)
class Selector:
    name: str
    description: str
    definition: SelectorDefinition
    where: str


def load_selectors(root: Path) -> dict[str, Selector]:
    """The selectors of ``root/selectors.yml`` by name; none when the file does not exist."""
    path = root / SELECTORS_FILE
    if not path.exists():
        return {}
    document = load_yaml_file(path, SELECTORS_FILE)
    data = document.data
    if not isinstance(data, dict) or not isinstance(data.get("selectors"), list):
        raise ManifestError(
            f"{SELECTORS_FILE} must be a mapping with a 'selectors:' list",
            where=str(document.mark(())),
            hint="write 'selectors:' then '- name: nightly' and 'definition: tag:nightly' below it",
        )
    for key in data:
        if key != "selectors":
            raise ManifestError(
                f"unknown top-level key '{key}'",
                where=str(document.key_mark((key,))),
                hint="the file has a single key, 'selectors:'",
            )
    selectors: dict[str, Selector] = {}
    for index, entry in enumerate(data["selectors"]):
        selector = _selector(document, entry, ("selectors", index))
        if selector.name in selectors:
            raise ManifestError(
                f"duplicate selector name '{selector.name}' "
                f"(first defined at {selectors[selector.name].where})",
                where=selector.where,
                hint="selector names must be unique: rename one of them",
            )
        selectors[selector.name] = selector
    return selectors


def _selector(document: YamlDocument, entry: Any, path: Path_) -> Selector:
    where = str(document.mark(path))
    if not isinstance(entry, dict):
        raise ManifestError(
            "a selector must be a mapping with 'name' and 'definition'",
            where=where,
            hint="write '- name: nightly' then 'definition: tag:nightly' indented below it",
        )
    _check_keys(document, entry, path, _SELECTOR_KEYS, "selector keys")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ManifestError(
            "a selector needs a 'name' (text)",
            where=str(document.mark((*path, "name"))),
            hint="add 'name: nightly'",
        )
    if "definition" not in entry:
        raise ManifestError(
            f"selector '{name}' has no 'definition'",
            where=where,
            hint="add 'definition: tag:nightly' (the --select grammar) or dbt's union:/intersection: form",
        )
    if entry.get("default") not in (None, False):
        raise ManifestError(
            f"selector '{name}': 'default: true' is not supported",
            where=str(document.mark((*path, "default"))),
            hint="pass --selector NAME explicitly, or remove 'default'",
        )
    description = entry.get("description") or ""
    if not isinstance(description, str):
        raise ManifestError(
            "'description' must be text", where=str(document.mark((*path, "description"))), hint="quote it"
        )
    definition = _definition(document, entry["definition"], (*path, "definition"))
    return Selector(name, description, definition, where)


def _definition(document: YamlDocument, data: Any, path: Path_) -> SelectorDefinition:
    where = str(document.mark(path))
    if isinstance(data, str):
        if not data.strip():
            raise ManifestError("empty selector definition", where=where, hint="write e.g. 'tag:nightly'")
        return SelectorDefinition("expression", where, expression=data)
    if not isinstance(data, dict) or not data:
        raise ManifestError(
            "a selector definition must be a string or a mapping",
            where=where,
            hint="write 'tag:nightly', {union: [...]}, {intersection: [...]} "
            "or {method: tag, value: nightly}",
        )
    operators = [key for key in _OPERATOR_KEYS if key in data]
    if operators:
        if len(data) != 1:
            extra = next(key for key in data if key != operators[0])
            raise ManifestError(
                f"'{operators[0]}' cannot be combined with '{extra}' in one mapping",
                where=str(document.key_mark((*path, extra))),
                hint=f"put '{extra}' inside the {operators[0]} list as its own item",
            )
        return _combination(document, data[operators[0]], (*path, operators[0]), operators[0])
    if "method" in data:
        _check_keys(document, data, path, _METHOD_KEYS, "method keys")
        method, value = data.get("method"), data.get("value")
        fields = _operators(document, data, path)
        return SelectorDefinition(
            "method",
            where,
            method=_text(document, method, (*path, "method")),
            value=_text(document, value, (*path, "value")),
            **fields,
        )
    if len(data) == 1:  # the shorthand {tag: nightly}
        [(method, value)] = data.items()
        return SelectorDefinition(
            "method", where, method=str(method), value=_text(document, value, (*path, method))
        )
    first = next(iter(data))
    raise ManifestError(
        f"unknown key '{first}' in a selector definition",
        where=str(document.key_mark((*path, first))),
        hint=did_you_mean(first, (*_OPERATOR_KEYS, *_METHOD_KEYS), "keys"),
    )


def _combination(document: YamlDocument, items: Any, path: Path_, kind: str) -> SelectorDefinition:
    where = str(document.mark(path))
    if not isinstance(items, list) or not items:
        raise ManifestError(
            f"'{kind}' must be a non-empty list of definitions",
            where=where,
            hint=f"write '{kind}:' then one '- ...' item per definition",
        )
    included: list[SelectorDefinition] = []
    excluded: list[SelectorDefinition] = []
    for index, item in enumerate(items):
        item_path = (*path, index)
        if isinstance(item, dict) and "exclude" in item:
            if len(item) != 1 or not isinstance(item["exclude"], list) or not item["exclude"]:
                raise ManifestError(
                    "an 'exclude' item must be alone in its mapping and hold a non-empty list",
                    where=str(document.mark(item_path)),
                    hint="write '- exclude:' then one '- ...' item per definition to leave out",
                )
            excluded.extend(
                _definition(document, sub, (*item_path, "exclude", position))
                for position, sub in enumerate(item["exclude"])
            )
        else:
            included.append(_definition(document, item, item_path))
    if not included:
        raise ManifestError(
            f"'{kind}' has only 'exclude' items", where=where, hint="add at least one definition to include"
        )
    return SelectorDefinition(
        "union" if kind == "union" else "intersection", where, items=tuple(included), exclude=tuple(excluded)
    )


def _operators(document: YamlDocument, data: Mapping[str, Any], path: Path_) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for flag in ("parents", "children", "childrens_parents"):
        if flag in data and not isinstance(data[flag], bool):
            raise ManifestError(
                f"'{flag}' must be true or false", where=str(document.mark((*path, flag))), hint="write true"
            )
    for direction in ("parents", "children"):
        depth = data.get(f"{direction}_depth")
        if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
            raise ManifestError(
                f"'{direction}_depth' must be a whole number >= 0",
                where=str(document.mark((*path, f"{direction}_depth"))),
                hint="write e.g. 2 (table hops)",
            )
        if depth is not None:
            fields[direction] = depth
        elif data.get(direction):
            fields[direction] = -1
    fields["childrens_parents"] = bool(data.get("childrens_parents"))
    return fields


def _text(document: YamlDocument, value: Any, path: Path_) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value).strip():
        raise ManifestError(
            "expected a non-empty text value",
            where=str(document.mark(path)),
            hint="write e.g. 'method: tag' and 'value: nightly'",
        )
    return str(value)


def _check_keys(
    document: YamlDocument, data: Mapping[str, Any], path: Path_, allowed: tuple[str, ...], what: str
) -> None:
    for key in data:
        if key not in allowed:
            raise ManifestError(
                f"unknown key '{key}'",
                where=str(document.key_mark((*path, key))),
                hint=did_you_mean(str(key), allowed, what),
            )
