"""The service catalog: which table services maintainer knows, as plain data.

Each service declares itself once, in its own folder (``services/<name>/declaration.py``): a
:class:`ServiceDeclaration` with its name, manifest block, action kinds and their labels, the
review's rules for changes of its block and the parts of apply's closing line it tells. The
registry (``maintainer.services.registry``) installs the :class:`Catalog` of every registered
declaration; the floors below the services (the project model, the graph) and those above them
(planning, rendering, the runner) derive their lists from :func:`installed`: the manifest
blocks, the order of nodes inside a table, which services only run on merge-on-read tables, the
labels of a plan's actions, the Hudi actions whose instants record a plan id, the change rules
and the closing line's wording. The behaviour of each service (plan, payloads, projection,
validation, apply) is its ``TableService`` in ``maintainer.services``.

This module imports nothing of maintainer but ``units`` (it sits below the project model).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, get_args, get_type_hints


@dataclass(frozen=True, slots=True)
class ActionLabel:
    """How a plan's summary counts one kind of action: ``1 file to delete``, ``2 files to delete``."""

    kind: str
    one: str
    many: str
    rank: int
    """Place of the kind in a plan's summary line (lowest first)."""


class ChangeKind(str, Enum):
    """How the review classifies a changed manifest option (``planning.changes``)."""

    DESTRUCTIVE = "destructive"
    REWRITE = "rewrite"
    METADATA = "metadata-only"


Classifier = Callable[[Any, Any], tuple[ChangeKind, str]]
"""(value before, value after) -> the kind of the change and why, for the reviewer."""


@dataclass(frozen=True, slots=True)
class NodeEffects:
    """What one node of an apply did: its service and the effects it reported."""

    service: str
    effects: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SummaryPart:
    """One part of apply's closing line (``12 file slices compacted``), told from the effects of
    every node of the run (None: nothing to tell)."""

    rank: int
    """Place of the part in the closing line (lowest first)."""
    tell: Callable[[Sequence[NodeEffects]], str | None]


@dataclass(frozen=True, slots=True)
class RuleBreach:
    """A resolved table's settings breaking one of a service's rules across options (Hudi's
    cross-field rules, HUDI.md §5). The project loader reports it as a manifest error
    (``table '<name>': <message>``) at the first path of ``blame`` a manifest or defaults file
    set, else at the last: the most specific value first, so the message points at the line a
    user most likely has to change."""

    message: str
    hint: str
    blame: tuple[tuple[str, ...], ...]
    """Paths from the table (``("archive", "keep_min_commits")``), most specific first."""


TableRules = Callable[[Any], Sequence[RuleBreach]]
"""A resolved table (``project.TableSpec``) -> the rules of a service its settings break."""


@dataclass(frozen=True)
class ServiceDeclaration:
    """One service: a kind of node of the graph (one per table that has its manifest block)."""

    name: str
    """The graph's service name (``<table>.<name>`` is the node)."""
    block: str
    """The manifest block that turns it on (several services may share one)."""
    actions: tuple[ActionLabel, ...]
    """The kinds of action its nodes plan, with their labels."""
    mor_only: bool = False
    """Runs on merge-on-read tables only (``plan`` drops it, keeping the order, for COW)."""
    ledger_actions: tuple[str, ...] = ()
    """Hudi actions (``Action`` values) whose instants carry the plan id of the node's apply."""
    change_rules: Mapping[str, Classifier] = field(default_factory=dict, hash=False)
    """How the review classifies a change of an option of the block, by its dotted path under
    the block (``commits_retained``, ``rolling.keep``). Services sharing a block declare its
    rules once, in one of them."""
    other_changes: tuple[ChangeKind, str] | None = None
    """A change of any other option of the block (None: metadata-only, as is a block removed)."""
    summary: tuple[SummaryPart, ...] = ()
    """The parts of apply's closing line the effects of its nodes make."""
    settings: type[Any] | None = None
    """The settings model of its manifest block (a frozen pydantic model, with the defaults and
    Hudi's names of its options); services sharing a block declare it once, in one of them."""
    records: tuple[type[Any], ...] = ()
    """The plan records of its actions (``artifact.model`` dataclasses tagged by ``kind``; one
    record may carry several of its kinds): the plan's ``Action`` union is derived from them."""
    effect: type[Any] | None = None
    """The plan record of its nodes' effect (tagged by ``kind``; services may share one): the
    plan's ``Effect`` union is derived from them."""
    table_rules: TableRules | None = None
    """The rules its settings must keep across options, and with other blocks' (``archive``:
    keep_min_commits above clean's commits_retained), checked on every resolved table."""
    inferred: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    """Options of its settings that, when not written, are inferred from the one of these options
    written (clean's ``policy`` from its ``*_retained``): their source says so (``Project.sources``)."""
    apply_effects: type[Any] | None = None
    """The model of what its nodes' apply did (a frozen pydantic model, ``services.base.
    ApplyEffects``): each node's ``adapter_response`` in run_results.json, whose schema is
    derived from them (None: its apply reports no effects)."""


DROP_METADATA_TABLE = ActionLabel(
    "drop_metadata_table", "metadata table to drop", "metadata tables to drop", 3
)
"""The action any table's first node may carry (``metadata_table: drop``)."""

SYNC_METADATA_TABLE = ActionLabel(
    "sync_metadata_table", "metadata table update", "metadata table updates", 13
)
"""The action a node that changes the table carries last (``metadata_table: sync``)."""


class CatalogError(ValueError):
    """Declarations that contradict each other (a programming error, found at registration)."""


@dataclass(frozen=True)
class Catalog:
    """The declarations of the registered services, in the order the nodes of one table run
    (HUDI.md §5, see ``graph.build``), and every list derived from them."""

    services: tuple[ServiceDeclaration, ...]

    def __post_init__(self) -> None:
        _check_unique("service name", [service.name for service in self.services])
        kinds = [label.kind for label in self.action_labels]
        _check_unique("action kind", kinds)
        _check_unique("action rank", [str(label.rank) for label in self.action_labels])
        for service in self.services:
            _check_labelled(service)
        _check_settings(self.services)
        _check_unique(
            "change rule", [f"{s.block}.{option}" for s in self.services for option in s.change_rules]
        )

    @cached_property
    def order(self) -> tuple[str, ...]:
        return tuple(service.name for service in self.services)

    @cached_property
    def blocks(self) -> tuple[str, ...]:
        """The manifest blocks, each once, in the order their last service runs (``savepoints``
        after ``archive``: its ``savepoint_delete`` runs last)."""
        return tuple(reversed(dict.fromkeys(service.block for service in reversed(self.services))))

    @cached_property
    def by_name(self) -> dict[str, ServiceDeclaration]:
        return {service.name: service for service in self.services}

    @cached_property
    def action_labels(self) -> tuple[ActionLabel, ...]:
        """Every action kind a plan may hold, in summary order."""
        labels = (DROP_METADATA_TABLE, SYNC_METADATA_TABLE, *(a for s in self.services for a in s.actions))
        return tuple(sorted(labels, key=lambda a: a.rank))

    @cached_property
    def change_rules(self) -> dict[str, Classifier]:
        """The review's rules by option (dotted path from the table: ``clean.commits_retained``)."""
        return {f"{s.block}.{option}": rule for s in self.services for option, rule in s.change_rules.items()}

    @cached_property
    def other_changes(self) -> dict[str, tuple[ChangeKind, str]]:
        """By block: how a change of an option without a rule of its own is classified."""
        return {s.block: s.other_changes for s in self.services if s.other_changes is not None}

    @cached_property
    def summary(self) -> tuple[SummaryPart, ...]:
        """The closing line's parts of every service, in their order."""
        return tuple(sorted((part for s in self.services for part in s.summary), key=lambda p: p.rank))

    @cached_property
    def settings(self) -> dict[str, type[Any]]:
        """The settings model of each manifest block, in the blocks' order."""
        declared = {s.block: s.settings for s in self.services if s.settings is not None}
        return {block: declared[block] for block in self.blocks}

    @cached_property
    def table_rules(self) -> tuple[TableRules, ...]:
        """Every service's table rules, in the catalog's order."""
        return tuple(s.table_rules for s in self.services if s.table_rules is not None)

    @cached_property
    def inferred(self) -> dict[str, tuple[str, ...]]:
        """By option (dotted path from the table: ``clean.policy``): the options it is inferred from."""
        return {f"{s.block}.{option}": given for s in self.services for option, given in s.inferred.items()}

    def block_of(self, settings: type[Any]) -> str:
        """The manifest block whose settings are ``settings``."""
        return next(block for block, model in self.settings.items() if model is settings)

    @cached_property
    def action_records(self) -> tuple[type[Any], ...]:
        """Every service's action records, in the catalog's order."""
        return tuple(dict.fromkeys(record for s in self.services for record in s.records))

    @cached_property
    def effect_records(self) -> tuple[type[Any], ...]:
        """Every service's effect record (each once), in the catalog's order."""
        return tuple(dict.fromkeys(s.effect for s in self.services if s.effect is not None))

    @cached_property
    def apply_effects(self) -> tuple[type[Any], ...]:
        """Every service's model of its apply's effects (each once), in the catalog's order."""
        return tuple(dict.fromkeys(s.apply_effects for s in self.services if s.apply_effects is not None))

    def extended(self, *services: ServiceDeclaration) -> Catalog:
        """This catalog with ``services`` run after its own."""
        return Catalog((*self.services, *services))


def _check_unique(what: str, values: Sequence[str]) -> None:
    repeated = sorted({value for value in values if values.count(value) > 1})
    if repeated:
        raise CatalogError(f"{what} declared twice: {', '.join(repeated)}")


def record_kinds(record: type[Any]) -> tuple[str, ...]:
    """The kinds a record's ``kind`` field takes (its ``Literal``)."""
    return tuple(str(kind) for kind in get_args(get_type_hints(record)["kind"]))


def _check_labelled(service: ServiceDeclaration) -> None:
    """Every kind its records carry has a label, and every label a record."""
    carried = {kind for record in service.records for kind in record_kinds(record)}
    labelled = {label.kind for label in service.actions}
    if carried != labelled:
        differ = ", ".join(sorted(carried ^ labelled))
        raise CatalogError(f"{service.name}: action kinds without both a record and a label: {differ}")


def _check_settings(services: Sequence[ServiceDeclaration]) -> None:
    """Each manifest block has one settings model, declared by one of its services."""
    for block in dict.fromkeys(service.block for service in services):
        declared = [s.name for s in services if s.block == block and s.settings is not None]
        if len(declared) != 1:
            raise CatalogError(
                f"the {block} block needs its settings declared by exactly one service (by: {declared})"
            )


_installed: list[Catalog] = []


def install(catalog: Catalog) -> None:
    """Make ``catalog`` the one every floor derives its lists from (the registry does, once)."""
    _installed[:] = [catalog]


def installed() -> Catalog:
    """The catalog the registry installed (importing ``maintainer.services.registry`` does)."""
    if not _installed:
        raise CatalogError("no service catalog is installed: import maintainer.services.registry first")
    return _installed[-1]


@contextmanager
def installing(catalog: Catalog) -> Iterator[Catalog]:
    """``catalog`` installed while the block runs (a test's extended registry), then the one
    before it again."""
    before = list(_installed)
    install(catalog)
    try:
        yield catalog
    finally:
        _installed[:] = before
