"""``maintainer status``'s assessment: each selected table planned exactly as ``maintainer plan``
plans it (the same builder, so the why-not reasons are the planners' own words), but listed in
full, and described from the state its nodes were planned on. Reads only."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import METADATA_TABLE_PATH, NodePlan
from maintainer.errors import MaintainerError
from maintainer.health import figures as fig
from maintainer.health.objectives import Figures, objectives, score, score_parts
from maintainer.health.records import STATUS_SCHEMA_VERSION, FleetHealth, OwnerHealth, TableHealth, WhyNot
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.hudi.table.state import TableState, open_table
from maintainer.planning.builder import UNKNOWN, BuiltTable, TableRequest, build_tables
from maintainer.project.models import TableSpec
from maintainer.project.objectives import DEFAULT_OBJECTIVES, ObjectivesSpec
from maintainer.secrets import redact


def status_requests(requests: Iterable[TableRequest]) -> list[TableRequest]:
    """The plan's requests, listing every partition (the figures describe the whole table)."""
    return [replace(request, full_listing=True) for request in requests]


def assess_fleet(
    project: str,
    target: str,
    requests: Iterable[TableRequest],
    storage_options: dict[str, object],
    now: datetime,
    threads: int = 4,
    on_table_done: Callable[[str], None] | None = None,
) -> FleetHealth:
    built = build_tables(status_requests(requests), storage_options, now, threads, on_table_done)
    tables = [assess_table(b, b_spec, now) for b, b_spec in _with_specs(built, requests)]
    return FleetHealth(
        maintainer_schema_version=STATUS_SCHEMA_VERSION,
        project=project,
        target=target,
        generated_at=now.isoformat(),
        tables=tuple(sorted(tables, key=worst_first)),
        owners=by_owner(tables),
    )


def by_owner(tables: Iterable[TableHealth]) -> tuple[OwnerHealth, ...]:
    groups: dict[str, list[TableHealth]] = {}
    for table in tables:
        groups.setdefault(table.owner or "", []).append(table)
    owners = [
        OwnerHealth(
            owner=owner,
            tables=len(members),
            overdue=sum(1 for t in members if t.overdue),
            unreadable=sum(1 for t in members if t.error),
            lowest_score=min(t.score for t in members),
            mean_score=round(sum(t.score for t in members) / len(members), 1),
        )
        for owner, members in groups.items()
    ]
    return tuple(sorted(owners, key=lambda o: (-(o.overdue + o.unreadable), o.lowest_score, o.owner)))


def _with_specs(
    built: list[BuiltTable], requests: Iterable[TableRequest]
) -> list[tuple[BuiltTable, TableSpec]]:
    specs = {request.spec.name: request.spec for request in requests}
    return [(b, specs[b.plan.name]) for b in built]


def worst_first(table: TableHealth) -> tuple[int, int, float, str]:
    return (0 if table.error else 1, -len(table.overdue), table.score, table.table)


def why_not(nodes: Iterable[NodePlan]) -> tuple[WhyNot, ...]:
    return tuple(
        WhyNot(service=n.service, status=n.status.value, reason=n.reasons[0] if n.reasons else "")
        for n in nodes
    )


def _effective(declared: ObjectivesSpec | None) -> ObjectivesSpec:
    """The declared limits, completed by the defaults."""
    if declared is None:
        return DEFAULT_OBJECTIVES
    values = {name: getattr(declared, name) for name in declared.model_fields_set}
    return DEFAULT_OBJECTIVES.model_copy(update=values)


def with_metadata_timeline(table: TableState) -> TableState:
    """Planning loads the metadata table's timeline only where it plans on the metadata table;
    the figures want it wherever the table has one."""
    info = table.snapshot.metadata_table
    if not info.exists or info.timeline is not None:
        return table
    try:
        storage = table.storage.child(METADATA_TABLE_PATH)
        timeline = load_timeline(storage, load_config(storage))
    except (MaintainerError, OSError):
        return table
    return replace(table, snapshot=replace(table.snapshot, metadata_table=replace(info, timeline=timeline)))


def assess_table(built: BuiltTable, spec: TableSpec, now: datetime) -> TableHealth:
    plan = built.plan
    if built.state is None:
        return _unreadable(built.plan.table_type, built.plan.version, built.error, built.plan.nodes, spec)
    return described(built.state, spec, now, plan.nodes)


def described(
    table: TableState, spec: TableSpec, now: datetime, nodes: Sequence[NodePlan] = ()
) -> TableHealth:
    """The health of a table read in full; ``nodes``: its planned nodes (the why-not reasons and
    what a clean frees; none when only measured)."""
    table = with_metadata_timeline(table)
    effective = _effective(spec.slo)
    # the defaults set every limit
    assert effective.max_pending_age is not None and effective.max_log_files_per_slice is not None
    figures = Figures(
        pending=fig.pending(table, now, effective.max_pending_age),
        log_backlog=fig.log_backlog(table, effective.max_log_files_per_slice),
        small_files=fig.small_files(table, effective.small_file_limit),
        timeline=fig.timeline_figures(table, spec, now),
        last_runs=fig.last_runs(table, now),
    )
    parts = score_parts(figures, spec.slo)
    config = table.snapshot.config
    return TableHealth(
        table=spec.name,
        path=spec.path,
        owner=spec.owner,
        tags=spec.tags,
        table_type=config.table_type.value,
        version=config.version,
        error=None,
        score=score(parts),
        score_parts=parts,
        objectives=objectives(figures, spec.slo),
        last_runs=figures.last_runs,
        pending=figures.pending,
        log_backlog=figures.log_backlog,
        small_files=figures.small_files,
        versions=fig.versions(table, nodes),
        timeline=figures.timeline,
        metadata_table=fig.metadata_figures(table),
        why_not=why_not(nodes),
        orphans=fig.orphan_figures(table, now),
    )


def measure_table(spec: TableSpec, storage_options: Mapping[str, object], now: datetime) -> TableHealth:
    """The figures of one table as it is now, without planning (apply records them before and
    after it runs, for ``status --history`` and "did it help")."""
    try:
        table = open_table(spec.path, dict(storage_options), verify=False)
    except MaintainerError as exc:
        return _unreadable(
            UNKNOWN, 0, redact(f"table {spec.name} ({spec.path}) cannot be read: {exc}"), (), spec
        )
    return described(table, spec, now)


def measure_tables(
    specs: Iterable[TableSpec], storage_options: Mapping[str, object], now: datetime, threads: int = 4
) -> dict[str, TableHealth]:
    ordered = sorted(specs, key=lambda s: s.name)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        measured = list(pool.map(lambda spec: measure_table(spec, storage_options, now), ordered))
    return {health.table: health for health in measured}


def _unreadable(
    table_type: str, version: int, error: str | None, nodes: Sequence[NodePlan], spec: TableSpec
) -> TableHealth:
    reason = error or next((n.reasons[0] for n in nodes if n.reasons), "cannot be read")
    return TableHealth(
        table=spec.name,
        path=spec.path,
        owner=spec.owner,
        tags=spec.tags,
        table_type=table_type,
        version=version,
        error=reason,
        score=0.0,
        score_parts=(),
        objectives=(),
        last_runs=(),
        pending=(),
        log_backlog=None,
        small_files=None,
        versions=None,
        timeline=None,
        metadata_table=None,
        why_not=why_not(nodes),
    )
