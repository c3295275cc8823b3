"""Build the plan: open each selected table once (only the partitions its planners need),
plan every selected node, and build the payloads apply will write (they carry the plan id).

A table that cannot be read, or that has a metadata table the manifest does not let us drop,
gets its nodes ``blocked`` with the reason, so the rest of the plan stays useful. Reading
never writes and never starts a JVM.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from maintainer.artifact.canonical import compute_plan_id
from maintainer.artifact.model import (
    METADATA_TABLE_PATH,
    DropMetadataTable,
    NodePlan,
    NodeStatus,
    Plan,
    TableFingerprint,
    TablePlan,
)
from maintainer.artifact.model.fingerprint import table_fingerprint
from maintainer.errors import MaintainerError
from maintainer.graph import NodeId
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.integrity import CorruptTableError
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.files import metadata_file_listing, metadata_listings
from maintainer.hudi.metadata.fitness import open_fit_for_sync
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.snapshot import (
    MetadataTableInfo,
    TableSnapshot,
    load_config,
    load_metadata_table_info,
    load_snapshot,
    load_timeline,
)
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.logs import fields, get_logger
from maintainer.planning.budget import candidates, chosen, within_budget
from maintainer.planning.gates import gated
from maintainer.planning.metadata_policy import (
    refuse_reason,
    unsupported_under_sync,
    with_sync_action,
)
from maintainer.planning.readers import reader_checked
from maintainer.project.models import TableSpec
from maintainer.secrets import redact
from maintainer.services.registry import service_for, unsupported_reason
from maintainer.storage import Storage
from maintainer.storage.gc_pause import paused_gc

log = get_logger(__name__)

UNKNOWN = "unknown"


def drops_metadata_table(service: str) -> bool:
    """Whether the service's apply drops the metadata table when its node's first action is
    ``drop_metadata_table`` (every registered one does: the first node of a table in execution
    order gets that action)."""
    return service_for(service) is not None


NEEDS_SYNCED_METADATA_TABLE = frozenset({"metadata"})
"""Services planned only for a table with a metadata table kept in sync (dropped otherwise,
keeping the order, as MOR-only services are for copy-on-write tables)."""


@dataclass(frozen=True)
class TableRequest:
    """One table to plan, with the services selected for it (in execution order)."""

    spec: TableSpec
    services: tuple[str, ...]
    mor_only: frozenset[str] = frozenset()
    """Services planned on merge-on-read tables only (dropped for copy-on-write)."""
    full_listing: bool = False
    """List every partition, whatever the services need (``status`` describes the whole table)."""
    compaction_keep: frozenset[str] | None = None
    """With a fleet budget: the only file slices (targets) its compaction may take."""
    budget: int = 0
    """The fleet's compaction budget (bytes read), said in the reason of a trimmed compaction."""


@dataclass(frozen=True)
class BuiltTable:
    plan: TablePlan
    storage: Storage | None
    error: str | None = None
    state: TableState | None = None
    """The table the nodes were planned on (None: it could not be read, or was not listed)."""


@dataclass(frozen=True)
class BuiltPlan:
    plan: Plan
    plan_id: str
    payloads: Mapping[str, bytes]
    errors: tuple[str, ...]
    """Tables that could not be read (their nodes are blocked): plan exits 1."""
    body: Mapping[str, Any] | None = None
    """``plan.body()``, made once for the plan id and reused to write plan.json."""


def requests_from_nodes(
    specs: Mapping[str, TableSpec], nodes: Iterable[NodeId], mor_only: Iterable[NodeId] = ()
) -> list[TableRequest]:
    """Group selected nodes (in execution order) by table, tables by name."""
    by_table: dict[str, list[str]] = {}
    for node in nodes:
        by_table.setdefault(node.table, []).append(node.service)
    mor = {(n.table, n.service) for n in mor_only}
    return [
        TableRequest(specs[name], tuple(services), frozenset(s for s in services if (name, s) in mor))
        for name, services in sorted(by_table.items())
    ]


# -- the table's state ---------------------------------------------------------------------


def fingerprint_of(snapshot: TableSnapshot) -> TableFingerprint:
    return table_fingerprint(snapshot.timeline, snapshot.config)


def _partitions_needed(
    storage: Storage,
    timeline: Timeline,
    request: TableRequest,
    services: Iterable[str],
    now: datetime,
    tz: str,
    worked_out: dict[str, object] | None = None,
) -> list[str] | None:
    """The partitions the services' planners need listed (None: all); what each worked out to
    choose them goes into ``worked_out`` (by service), for its planner."""
    if request.full_listing:
        return None
    needed: set[str] | None = set()
    for service in services:
        entry = service_for(service)
        if entry is None:
            continue
        prepared = entry.prepare(storage, timeline, request.spec, now, tz)
        if worked_out is not None and prepared.worked_out is not None:
            worked_out[service] = prepared.worked_out
        if prepared.partitions is None:
            needed = None
        elif needed is not None:
            needed.update(prepared.partitions)
    return None if needed is None else sorted(needed)


def open_for_services(
    storage: Storage,
    request: TableRequest,
    services: Iterable[str],
    now: datetime,
    config: TableConfig | None = None,
    timeline: Timeline | None = None,
    metadata_table: MetadataTableInfo | None = None,
    worked_out: dict[str, object] | None = None,
) -> TableState:
    """Open the table listing only the partitions the services' planners need. ``config``,
    ``timeline``, ``metadata_table``: the table as this command already read it (not read again);
    ``worked_out``: filled with what the services worked out choosing the partitions."""
    config = config if config is not None else load_config(storage)
    timeline = timeline if timeline is not None else load_timeline(storage, config)
    tz = config.timeline_timezone
    services = tuple(services)
    partitions = _partitions_needed(storage, timeline, request, services, now, tz, worked_out)
    return read_table_state(
        storage,
        partitions,
        config=config,
        timeline=timeline,
        metadata_table=metadata_table,
        sizes=_reads_file_sizes(request, services),
    )


def _reads_file_sizes(request: TableRequest, services: tuple[str, ...]) -> bool:
    """Whether the table must be listed with every file's size: ``status`` reports them, and so
    may any selected service's planner (a clean's, an archival's or a rollback's does not)."""
    return request.full_listing or any(
        (entry := service_for(s)) is None or entry.reads_file_sizes for s in services
    )


# -- nodes -----------------------------------------------------------------------------------


def _blocked(table: str, services: Iterable[str], reason: str) -> tuple[NodePlan, ...]:
    return tuple(_blocked_node(table, s, reason) for s in services)


def _blocked_node(table: str, service: str, reason: str) -> NodePlan:
    """A node blocked for ``reason``, often an error's text (which may quote a storage option:
    secrets are masked, as the plan is written and printed)."""
    return NodePlan(table=table, service=service, status=NodeStatus.BLOCKED, reasons=(redact(reason),))


def _drop_metadata_action(info: MetadataTableInfo) -> DropMetadataTable:
    return DropMetadataTable(
        target=METADATA_TABLE_PATH,
        reason="metadata_table: drop in the manifest: the metadata table is removed as Hudi's "
        "delete_metadata_table does (hoodie.properties first, then the folder)",
        partitions=tuple(info.partitions + info.inflight_partitions),
    )


def _with_first_action(node: NodePlan, action: DropMetadataTable) -> NodePlan:
    return replace(
        node,
        status=NodeStatus.CHANGES if node.status is not NodeStatus.BLOCKED else node.status,
        actions=(action, *node.actions),
    )


def _plan_node(
    table: TableState,
    spec: TableSpec,
    service: str,
    now: datetime,
    request: TableRequest | None = None,
    worked_out: object = None,
) -> NodePlan:
    entry = service_for(service)
    if entry is None:
        return _blocked_node(spec.name, service, unsupported_reason(service))
    try:
        node = entry.plan_prepared(table, spec, now, worked_out)
        if request is not None and request.compaction_keep is not None:
            node = within_budget(node, request.compaction_keep, request.budget, table)
        return reader_checked(gated(node, spec), spec, table, now)
    except CorruptTableError:
        raise  # damage a planner found (e.g. a compaction input) blocks the whole table
    except MaintainerError as exc:
        return _blocked_node(spec.name, service, str(exc))


def _plan_in_order(
    table: TableState,
    spec: TableSpec,
    services: Iterable[str],
    now: datetime,
    request: TableRequest | None = None,
    worked_out: Mapping[str, object] | None = None,
) -> list[NodePlan]:
    """Plan the nodes in execution order. A node whose service plans on the projection sees
    the table as the earlier nodes will leave it (e.g. the clean after this plan's compaction,
    so it can remove the slices the compaction supersedes); the others see it as read.
    ``worked_out``: what each service worked out choosing the partitions to list."""
    nodes: list[NodePlan] = []
    projected = table
    for service in services:
        entry = service_for(service)
        planned_on = projected if entry is not None and entry.plans_on_projection else table
        node = _plan_node(planned_on, spec, service, now, request, (worked_out or {}).get(service))
        nodes.append(node)
        if entry is not None:
            # a projection that cannot be made leaves later nodes on the state before this node
            # (at worst, what they approve drifts at apply)
            with contextlib.suppress(MaintainerError, ValueError):
                projected = entry.project(projected, node)
    return nodes


def _first_runnable(nodes: list[NodePlan]) -> int | None:
    """The index of the first node (execution order) that apply will run (blocked ones are
    skipped, so they never touch the table)."""
    for index, node in enumerate(nodes):
        if node.status is not NodeStatus.BLOCKED:
            return index
    return None


def _plan_synced(
    storage: Storage,
    config: TableConfig,
    info: MetadataTableInfo,
    request: TableRequest,
    services: tuple[str, ...],
    now: datetime,
) -> tuple[TableState, tuple[NodePlan, ...]]:
    """``metadata_table: sync``: a metadata table unfit for sync blocks every node; a service
    that cannot sync it is blocked before it is planned; the others say what they write. The
    timeline the fitness check reads is the one the nodes are planned on."""
    spec = request.spec
    head = read_table_state(storage, partitions=(), verify=False, config=config, metadata_table=info)
    try:
        mdt = open_fit_for_sync(head)
    except MaintainerError as exc:
        blocked = _blocked(spec.name, services, str(exc))
        if request.full_listing:  # described as storage has it: the metadata table cannot say
            return open_for_services(
                storage, request, services, now, config, head.snapshot.timeline, info
            ), blocked
        return head, blocked
    worked_out: dict[str, object] = {}
    table = open_from_metadata_table(storage, mdt, head.snapshot, request, services, now, worked_out)
    runnable = [s for s in services if (entry := service_for(s)) is None or entry.syncs_metadata_table]
    planned = dict(
        zip(runnable, _plan_in_order(table, spec, runnable, now, request, worked_out), strict=True)
    )
    nodes = []
    for service in services:
        entry = service_for(service)
        if service not in planned:
            nodes.append(_blocked_node(spec.name, service, unsupported_under_sync(service)))
        elif entry is None:
            nodes.append(planned[service])
        else:
            nodes.append(with_sync_action(planned[service], entry, mdt))
    return table, tuple(nodes)


def _lists_storage(services: Iterable[str]) -> bool:
    """A selected service plans on what storage holds (orphan files): the metadata table lists
    only what instants account for."""
    return any((entry := service_for(s)) is not None and entry.lists_storage for s in services)


def open_from_metadata_table(
    storage: Storage,
    mdt: MetadataTable,
    head: TableSnapshot,
    request: TableRequest,
    services: Iterable[str],
    now: datetime,
    worked_out: dict[str, object] | None = None,
) -> TableState:
    """The table as planning reads it, listed from the metadata table's ``files`` partition (as
    Hudi's own services list it): no LIST per partition. Storage is listed instead while a
    write is pending (a failed write's files are only there, and its rollback must see them),
    for ``status`` and for a service that plans on storage (orphan files).
    Apply lists the partitions it changes from storage again. ``head``: the table's properties
    and timeline as already read (not read again)."""
    config, timeline, info = head.config, head.timeline, head.metadata_table
    services = tuple(services)
    if timeline.pending_writes() or request.full_listing or _lists_storage(services):
        table = open_for_services(storage, request, services, now, config, timeline, info, worked_out)
    else:
        tz = mdt.state.snapshot.config.timeline_timezone
        needed = _partitions_needed(storage, timeline, request, services, now, tz, worked_out)
        listed = metadata_listings(metadata_file_listing(mdt), needed)
        table = read_table_state(
            storage, listed=listed, config=config, timeline=timeline, metadata_table=info
        )
    return _knowing_metadata_timeline(table, mdt)


def _knowing_metadata_timeline(table: TableState, mdt: MetadataTable) -> TableState:
    """The table with the metadata table's timeline the fitness check read (for the planners
    that need it, e.g. archival's guard on the metadata table's latest compaction)."""
    info = replace(table.snapshot.metadata_table, timeline=mdt.state.snapshot.timeline)
    return replace(table, snapshot=replace(table.snapshot, metadata_table=info))


def _plan_nodes(
    table: TableState,
    request: TableRequest,
    services: tuple[str, ...],
    now: datetime,
    worked_out: Mapping[str, object] | None = None,
) -> tuple[NodePlan, ...]:
    """Plan the nodes; with a metadata table to drop, the first node that runs drops it (its
    first action), before any other node changes the table."""
    spec = request.spec
    info = table.snapshot.metadata_table
    nodes = _plan_in_order(table, spec, services, now, request, worked_out)
    if not info.enabled:
        return tuple(nodes)
    first = _first_runnable(nodes)
    if first is None:
        return tuple(nodes)
    service = nodes[first].service
    if not drops_metadata_table(service):
        reason = (
            f"the metadata table must be dropped first (metadata_table: drop), and {spec.name}.{service}, "
            "the first node to run on the table, cannot drop it: select a service that runs before it"
        )
        return _blocked(spec.name, services, reason)
    nodes[first] = _with_first_action(nodes[first], _drop_metadata_action(info))
    return tuple(nodes)


def build_table(request: TableRequest, storage_options: Mapping[str, object], now: datetime) -> BuiltTable:
    """Plan one table's selected nodes; any read error blocks them with its message. The cyclic
    garbage collector is paused meanwhile (hundreds of thousands of acyclic small objects)."""
    with paused_gc():
        return _build_table(request, storage_options, now)


def _warn_recoverable(name: str, config: TableConfig, table: TableState) -> None:
    """Say what a killed writer left that the table is planned around and apply finishes first
    (:mod:`maintainer.hudi.table.recovery`): a ``hoodie.properties`` update cut short (planned on the
    backup, as Hudi reads it), a table service's completion cut short (planned as inflight)."""
    if config.properties_problem is not None:
        log.warning(
            f"table {name}: hoodie.properties is unusable ({config.properties_problem}); planned on "
            "hoodie.properties.backup, as Hudi reads it; the next apply recovers hoodie.properties "
            "from it first, as Hudi's own recovery does",
            extra=fields(table=name, event="recoverable"),
        )
    for item in table.interrupted:
        log.warning(
            f"table {name}: {item.describe()}",
            extra=fields(table=name, instant=item.instant.timestamp, event="recoverable"),
        )


def _build_table(request: TableRequest, storage_options: Mapping[str, object], now: datetime) -> BuiltTable:
    spec = request.spec
    empty = TableFingerprint(instants=(), savepoints=(), properties_checksum="")
    try:
        storage = Storage(spec.path, dict(storage_options))
        config = load_config(storage)
        services = tuple(s for s in request.services if config.is_mor or s not in request.mor_only)
        info = load_metadata_table_info(storage, config)
        policy = spec.metadata_policy(config.version)
        if info.enabled and policy == "refuse":
            reason = refuse_reason(info, config.version, explicit=spec.metadata_table == "refuse")
            head = load_snapshot(storage, [], config=config, metadata_table=info)
            nodes = _blocked(spec.name, services, reason)
            described = (  # status describes a refused table all the same
                open_for_services(storage, request, services, now, config, metadata_table=info)
                if request.full_listing
                else None
            )
            return BuiltTable(
                _table_plan(spec, config.table_type.value, config.version, fingerprint_of(head), nodes),
                storage,
                state=described,
            )
        if policy != "sync" or not info.partitions:
            services = tuple(s for s in services if s not in NEEDS_SYNCED_METADATA_TABLE)
        if policy == "sync" and (info.partitions or info.inflight_partitions):
            table, nodes = _plan_synced(storage, config, info, request, services, now)
        else:
            worked_out: dict[str, object] = {}
            table = open_for_services(
                storage, request, services, now, config, metadata_table=info, worked_out=worked_out
            )
            nodes = _plan_nodes(table, request, services, now, worked_out)
        _warn_recoverable(spec.name, config, table)
        plan = _table_plan(
            spec, config.table_type.value, config.version, fingerprint_of(table.snapshot), nodes
        )
        return BuiltTable(plan, storage, state=table)
    except CorruptTableError as exc:
        message = redact(f"table {spec.name} ({spec.path}) is damaged, none of its nodes runs: {exc}")
        nodes = _blocked(spec.name, request.services, message)
        return BuiltTable(_table_plan(spec, UNKNOWN, 0, empty, nodes), None, message)
    except MaintainerError as exc:  # its text may quote the storage options: secrets masked
        message = redact(f"table {spec.name} ({spec.path}) cannot be read: {exc}")
        nodes = _blocked(spec.name, request.services, message)
        return BuiltTable(_table_plan(spec, UNKNOWN, 0, empty, nodes), None, message)


def _table_plan(
    spec: TableSpec, table_type: str, version: int, fingerprint: TableFingerprint, nodes: tuple[NodePlan, ...]
) -> TablePlan:
    return TablePlan(
        name=spec.name,
        path=spec.path,
        table_type=table_type,
        version=version,
        fingerprint=fingerprint,
        nodes=nodes,
    )


def _payloads(tables: Iterable[BuiltTable], plan_id: str) -> dict[str, bytes]:
    payloads: dict[str, bytes] = {}
    for built in tables:
        for node in built.plan.nodes:
            entry = service_for(node.service)
            if node.payloads and entry is not None and built.storage is not None:
                payloads.update(entry.payloads(node, built.storage, plan_id))
    return payloads


def build_tables(
    requests: Iterable[TableRequest],
    storage_options: Mapping[str, object],
    now: datetime,
    threads: int = 4,
    on_table_done: Callable[[str], None] | None = None,
) -> list[BuiltTable]:
    """Plan every requested table (``threads`` at once), sorted by name."""

    def one(request: TableRequest) -> BuiltTable:
        built = build_table(request, storage_options, now)
        if on_table_done is not None:
            on_table_done(request.spec.name)
        return built

    ordered = sorted(requests, key=lambda r: r.spec.name)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        return list(pool.map(one, ordered))


def _within_budget(
    built: list[BuiltTable],
    requests: list[TableRequest],
    budget: int,
    storage_options: Mapping[str, object],
    now: datetime,
    threads: int,
) -> list[BuiltTable]:
    """Plan again, each with the slices the budget gives it, the tables whose compaction the
    budget trims."""
    keep = chosen(candidates(n for b in built for n in b.plan.nodes), budget)
    again = [
        replace(r, compaction_keep=keep[r.spec.name], budget=budget) for r in requests if r.spec.name in keep
    ]
    if not again:
        return built
    replanned = {b.plan.name: b for b in build_tables(again, storage_options, now, threads)}
    return [replanned.get(b.plan.name, b) for b in built]


def build_plan(
    project: str,
    target: str,
    requests: Iterable[TableRequest],
    storage_options: Mapping[str, object],
    now: datetime,
    threads: int = 4,
    on_table_done: Callable[[str], None] | None = None,
    budget: int | None = None,
) -> BuiltPlan:
    """Plan every requested table (``threads`` at once); tables in the plan are sorted by name.
    With a compaction ``budget`` (bytes read) the fleet's compactions are trimmed to it (see
    :mod:`maintainer.planning.budget`)."""
    requests = list(requests)
    built = build_tables(requests, storage_options, now, threads, on_table_done)
    if budget is not None:
        built = _within_budget(built, requests, budget, storage_options, now, threads)
    plan = Plan(project=project, target=target, tables=tuple(b.plan for b in built))
    with paused_gc():
        body = plan.body()
        plan_id = compute_plan_id(body)
        payloads = _payloads(built, plan_id)
    errors = tuple(b.error for b in built if b.error is not None)
    return BuiltPlan(plan, plan_id, payloads, errors, body)
