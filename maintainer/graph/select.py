"""Node selection with dbt's grammar.

A selector is ``[@][N]+?METHOD:VALUE+?[N]`` where METHOD is ``table`` (the default for a
bare word), ``tag``, ``path`` (manifest file or folder, relative to the project) or
``service``; values may use shell globs (``*``). A bare ``table.service`` names one node.
``+x`` adds x's ancestors, ``x+`` its descendants (``2+x``/``x+1`` limit the depth), ``@x``
adds x's descendants and all of their ancestors. Words separated by spaces are a union,
selectors joined by commas an intersection; ``--exclude`` takes the same grammar and wins.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from maintainer.errors import UsageError
from maintainer.graph.build import NodeId
from maintainer.project.issues import did_you_mean

METHODS = ("table", "tag", "path", "service")
_ATOM = re.compile(r"^(?P<at>@)?(?:(?P<up>\d*)\+)?(?P<body>[^+@]+?)(?:\+(?P<down>\d*))?$")
ALL = -1


@dataclass(frozen=True, slots=True)
class Atom:
    text: str
    method: str
    value: str
    parents: int | None = None
    children: int | None = None
    at: bool = False


@dataclass(frozen=True, slots=True)
class SelectionResult:
    nodes: frozenset[NodeId]
    unmatched: tuple[str, ...] = ()
    """One message per selector that matched no node (with a did-you-mean hint)."""


def parse_selector(expression: str) -> list[list[Atom]]:
    """Union (spaces) of intersections (commas) of atoms."""
    return [[_parse_atom(part) for part in word.split(",")] for word in expression.split()]


def _parse_atom(text: str) -> Atom:
    match = _ATOM.match(text)
    if not text or match is None:
        raise UsageError(
            f"invalid selector '{text}'", hint="write e.g. trips, tag:core, +trips, path:tables/a.yml"
        )
    if match["at"] and (match["up"] is not None):
        raise UsageError(
            f"invalid selector '{text}': '@' and a leading '+' cannot be combined",
            hint="use @name (descendants and their ancestors) or +name",
        )
    body = match["body"]
    method, _, value = body.partition(":") if ":" in body else ("table", "", body)
    if method not in METHODS:
        raise UsageError(
            f"unknown selector method '{method}' in '{text}'", hint=did_you_mean(method, METHODS, "methods")
        )
    if not value:
        raise UsageError(
            f"selector '{text}' has no value after '{method}:'", hint=f"write e.g. {method}:<value>"
        )
    return Atom(text, method, value, _depth(match["up"]), _depth(match["down"]), bool(match["at"]))


def _depth(text: str | None) -> int | None:
    if text is None:
        return None
    return int(text) if text else ALL


def select_nodes(
    graph: nx.DiGraph, select: Sequence[str] = (), exclude: Sequence[str] = ()
) -> SelectionResult:
    """The nodes selected by ``select`` (all when empty) minus those selected by ``exclude``."""
    unmatched: list[str] = []
    chosen = _evaluate(graph, select, unmatched) if any(s.strip() for s in select) else set(graph)
    dropped = _evaluate(graph, exclude, unmatched)
    return SelectionResult(frozenset(chosen - dropped), tuple(unmatched))


def _evaluate(graph: nx.DiGraph, expressions: Sequence[str], unmatched: list[str]) -> set[NodeId]:
    result: set[NodeId] = set()
    for expression in expressions:
        for intersection in parse_selector(expression):
            sets = [_atom_nodes(graph, atom, unmatched) for atom in intersection]
            result |= set.intersection(*sets)
    return result


def _atom_nodes(graph: nx.DiGraph, atom: Atom, unmatched: list[str]) -> set[NodeId]:
    test = _matcher(atom)
    base = {node for node, data in graph.nodes(data=True) if test(node, data)}
    if not base:
        unmatched.append(_unmatched_message(graph, atom))
    selected = set(base)
    if atom.at:
        descendants = _walk(graph, base, ALL, graph.successors)
        selected |= descendants | _walk(graph, base | descendants, ALL, graph.predecessors)
    if atom.parents is not None:
        selected |= _walk(graph, base, atom.parents, graph.predecessors)
    if atom.children is not None:
        selected |= _walk(graph, base, atom.children, graph.successors)
    return selected


def _matcher(atom: Atom) -> Callable[[NodeId, dict[str, Any]], bool]:
    value = atom.value
    if atom.method == "tag":
        return lambda node, data: any(fnmatch.fnmatchcase(tag, value) for tag in data["tags"])
    if atom.method == "service":
        return lambda node, data: _service_matches(data, value)
    if atom.method == "path":
        wanted = value.removeprefix("./").rstrip("/")
        return lambda node, data: _path_matches(data["manifest"], wanted)
    table, dot, service = value.partition(".")
    if dot:
        return lambda node, data: fnmatch.fnmatchcase(node.table, table) and _service_matches(data, service)
    return lambda node, data: fnmatch.fnmatchcase(node.table, table)


def _service_matches(data: dict[str, Any], value: str) -> bool:
    return fnmatch.fnmatchcase(data["service"], value) or fnmatch.fnmatchcase(data["block"], value)


def _path_matches(manifest: str, wanted: str) -> bool:
    return manifest == wanted or manifest.startswith(wanted + "/") or fnmatch.fnmatchcase(manifest, wanted)


def _walk(
    graph: nx.DiGraph, start: Iterable[NodeId], depth: int, step: Callable[[NodeId], Iterable[NodeId]]
) -> set[NodeId]:
    found: set[NodeId] = set()
    frontier = set(start)
    level = 0
    while frontier and (depth == ALL or level < depth):
        frontier = {neighbour for node in frontier for neighbour in step(node)} - found
        found |= frontier
        level += 1
    return found


def _unmatched_message(graph: nx.DiGraph, atom: Atom) -> str:
    known: set[str] = set()
    for node, data in graph.nodes(data=True):
        if atom.method == "tag":
            known.update(data["tags"])
        elif atom.method == "path":
            known.add(data["manifest"])
        elif atom.method == "service":
            known.update((data["service"], data["block"]))
        else:
            known.add(node.table)
    what = {"tag": "tags", "path": "manifests", "service": "services"}.get(atom.method, "tables")
    value = atom.value.partition(".")[0] if atom.method == "table" else atom.value
    return f"selector '{atom.text}' matched no node; {did_you_mean(value, known, what)}"
