"""Node selection with dbt's grammar.

A selector is ``[@][N]+?METHOD:VALUE+?[N]`` where METHOD is ``table`` (the default for a
bare word), ``tag``, ``owner`` (the manifest's ``owner:``), ``path`` (manifest file or folder,
relative to the project), ``service``, ``state`` (``modified``, ``new``, ``unmodified``, ``old``: against the
manifest.json of ``--state DIR``, see ``maintainer.graph.state``) or ``selector`` (a named
selection of selectors.yml); values may use shell globs (``*``). A bare ``table.service``
names one node. Words separated by spaces are a union, selectors joined by commas an
intersection; ``--exclude`` takes the same grammar and wins.

Graph operators work on tables, as dbt's work on models: ``+x`` adds the tables x depends on
(``depends_on``, transitively), ``x+`` the tables that depend on x, ``2+x``/``x+1`` stop
after that many table hops, and ``@x`` adds x's descendants and all of their ancestors. A
table reached this way brings all of its nodes (every service). The nodes x itself matched
are kept as they are, except that when x matched only some services of a table (``orders.clean``,
``service:clean``) the operator first adds that table's own services before (``+``) or after
(``x+``) them in execution order; that step is not counted as a hop. So ``+orders.clean`` is
orders' rollback, compaction, savepoint_create and clean plus every table orders depends on,
and ``orders.clean+1`` is orders' clean, archive and savepoint_delete plus, whole, the tables
that depend directly on orders.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from maintainer.errors import UsageError
from maintainer.graph.build import NodeId
from maintainer.graph.state import STATE_VALUES, StateComparison
from maintainer.project.issues import did_you_mean
from maintainer.project.selectors import SELECTORS_FILE, Selector, SelectorDefinition

METHODS = ("table", "tag", "owner", "path", "service", "state", "selector")
_ATOM = re.compile(r"^(?P<at>@)?(?:(?P<up>\d*)\+)?(?P<body>[^+@]+?)(?:\+(?P<down>\d*))?$")
ALL = -1
STATE_NEEDS_DIR = "{text} needs --state DIR with a manifest.json from an earlier `maintainer compile`"


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


@dataclass(frozen=True)
class SelectionContext:
    """What some methods need beyond the graph: ``state:`` an earlier manifest.json,
    ``selector:`` the selectors of selectors.yml."""

    state: StateComparison | None = None
    selectors: Mapping[str, Selector] = field(default_factory=dict)


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
    atom = Atom(text, method, value, _depth(match["up"]), _depth(match["down"]), bool(match["at"]))
    check_atom(atom)
    return atom


def check_atom(atom: Atom) -> None:
    """A UsageError when the method is unknown, the value missing, or a state value unknown."""
    if atom.method not in METHODS:
        raise UsageError(
            f"unknown selector method '{atom.method}' in '{atom.text}'",
            hint=did_you_mean(atom.method, METHODS, "methods"),
        )
    if not atom.value:
        raise UsageError(
            f"selector '{atom.text}' has no value after '{atom.method}:'",
            hint=f"write e.g. {atom.method}:<value>",
        )
    if atom.method == "state" and atom.value not in STATE_VALUES:
        raise UsageError(
            f"unknown state '{atom.value}' in '{atom.text}'",
            hint=did_you_mean(atom.value, STATE_VALUES, "states"),
        )


def _depth(text: str | None) -> int | None:
    if text is None:
        return None
    return int(text) if text else ALL


def select_nodes(
    graph: nx.DiGraph,
    select: Sequence[str] = (),
    exclude: Sequence[str] = (),
    context: SelectionContext | None = None,
) -> SelectionResult:
    """The nodes selected by ``select`` (all when empty) minus those selected by ``exclude``."""
    evaluator = _Evaluator(graph, context or SelectionContext())
    chosen = evaluator.expressions(select) if any(s.strip() for s in select) else set(graph)
    dropped = evaluator.expressions(exclude)
    return SelectionResult(frozenset(chosen - dropped), tuple(evaluator.unmatched))


class _Evaluator:
    def __init__(self, graph: nx.DiGraph, context: SelectionContext) -> None:
        self.graph = graph
        self.context = context
        self.unmatched: list[str] = []
        self._stack: list[str] = []
        self.by_table: dict[str, set[NodeId]] = {}
        for node in graph:
            self.by_table.setdefault(node.table, set()).add(node)
        self.tables = nx.DiGraph()
        self.tables.add_nodes_from(self.by_table)
        self.tables.add_edges_from((u.table, v.table) for u, v in graph.edges if u.table != v.table)

    def expressions(self, expressions: Sequence[str]) -> set[NodeId]:
        result: set[NodeId] = set()
        for expression in expressions:
            for intersection in parse_selector(expression):
                sets = [self.atom(atom) for atom in intersection]
                result |= set.intersection(*sets)
        return result

    def atom(self, atom: Atom) -> set[NodeId]:
        base = self.base(atom)
        if not base:
            self.unmatched.append(self._unmatched_message(atom))
        selected = set(base)
        if atom.at:
            descendants = self.walk(base, ALL, upstream=False)
            selected |= descendants | self.walk(base | descendants, ALL, upstream=True)
        if atom.parents is not None:
            selected |= self.walk(base, atom.parents, upstream=True)
        if atom.children is not None:
            selected |= self.walk(base, atom.children, upstream=False)
        return selected

    def base(self, atom: Atom) -> set[NodeId]:
        if atom.method == "state":
            return self._state_nodes(atom)
        if atom.method == "selector":
            return self._selector_nodes(atom)
        test = _matcher(atom)
        return {node for node, data in self.graph.nodes(data=True) if test(node, data)}

    def walk(self, start: set[NodeId], depth: int, *, upstream: bool) -> set[NodeId]:
        """The nodes before (``upstream``) or after ``start`` in their own tables, and every node
        of the tables ``depth`` table hops (all when ALL) up or down from theirs."""
        step = self.graph.predecessors if upstream else self.graph.successors
        found: set[NodeId] = set()
        frontier = set(start)
        while frontier:  # the table's own chain: not a hop
            frontier = {n for node in frontier for n in step(node) if n.table == node.table} - found
            found |= frontier
        table_step = self.tables.predecessors if upstream else self.tables.successors
        tables: set[str] = set()
        level_tables = {node.table for node in start}
        level = 0
        while level_tables and (depth == ALL or level < depth):
            level_tables = {t for table in level_tables for t in table_step(table)} - tables
            tables |= level_tables
            level += 1
        for table in tables:
            found |= self.by_table[table]
        return found - start

    def _state_nodes(self, atom: Atom) -> set[NodeId]:
        state = self.context.state
        if state is None:
            raise UsageError(
                STATE_NEEDS_DIR.format(text=atom.text),
                hint="e.g. `maintainer compile --target prod` on the main branch, keep its target/ "
                "folder, then `maintainer plan --select state:modified --state that/folder`",
            )
        return {node for table in state.tables(atom.value) for node in self.by_table.get(table, ())}

    def _selector_nodes(self, atom: Atom) -> set[NodeId]:
        selectors = self.context.selectors
        if atom.value not in selectors:
            raise UsageError(
                f"unknown selector '{atom.value}' in '{atom.text}'",
                where=SELECTORS_FILE if selectors else None,
                hint=did_you_mean(atom.value, selectors, f"selectors (in {SELECTORS_FILE})"),
            )
        if atom.value in self._stack:
            cycle = " -> ".join([*self._stack[self._stack.index(atom.value) :], atom.value])
            raise UsageError(
                f"selectors refer to each other in a circle: {cycle}",
                where=selectors[atom.value].where,
                hint="a selector cannot include itself, directly or through others",
            )
        self._stack.append(atom.value)
        try:
            return self.definition(selectors[atom.value].definition)
        finally:
            self._stack.pop()

    def definition(self, definition: SelectorDefinition) -> set[NodeId]:
        try:
            if definition.kind == "expression":
                return self.expressions([definition.expression])
            if definition.kind == "method":
                text = f"{definition.method}:{definition.value}"
                atom = Atom(
                    text,
                    definition.method,
                    definition.value,
                    definition.parents,
                    definition.children,
                    definition.childrens_parents,
                )
                check_atom(atom)
                return self.atom(atom)
        except UsageError as exc:
            if exc.where is None:  # the innermost definition at fault names its place
                exc.where = definition.where
            raise
        sets = [self.definition(item) for item in definition.items]
        result = set.union(*sets) if definition.kind == "union" else set.intersection(*sets)
        for item in definition.exclude:
            result -= self.definition(item)
        return result

    def _unmatched_message(self, atom: Atom) -> str:
        if atom.method == "state":
            assert self.context.state is not None
            return f"selector '{atom.text}' matched no node (compared with {self.context.state.path})"
        if atom.method == "selector":
            return f"selector '{atom.text}' matched no node"
        known: set[str] = set()
        for node, data in self.graph.nodes(data=True):
            if atom.method == "tag":
                known.update(data["tags"])
            elif atom.method == "owner" and data["owner"]:
                known.add(data["owner"])
            elif atom.method == "path":
                known.add(data["manifest"])
            elif atom.method == "service":
                known.update((data["service"], data["block"]))
            else:
                known.add(node.table)
        what = {"tag": "tags", "owner": "owners", "path": "manifests", "service": "services"}.get(
            atom.method, "tables"
        )
        value = atom.value.partition(".")[0] if atom.method == "table" else atom.value
        return f"selector '{atom.text}' matched no node; {did_you_mean(value, known, what)}"


def _matcher(atom: Atom) -> Callable[[NodeId, dict[str, Any]], bool]:
    value = atom.value
    if atom.method == "tag":
        return lambda node, data: any(fnmatch.fnmatchcase(tag, value) for tag in data["tags"])
    if atom.method == "owner":
        return lambda node, data: bool(data["owner"]) and fnmatch.fnmatchcase(data["owner"], value)
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
