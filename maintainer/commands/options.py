"""The options every project command shares, and loading the project from them.

``@common_options()`` adds ``--project-dir``, ``--profiles-dir``, ``--target``, ``--vars``,
``--threads`` and (unless ``selection=False``) ``--select``/``--exclude``/``--selector``/
``--state``; the command receives them as one ``options: CommonOptions`` argument.
``load_from_options(options)`` loads and validates the project (and selectors.yml), compiles
the graph and applies the selection.

As in dbt, ``--select`` and ``--exclude`` take several values after one flag
(``--select trips orders tag:core``: every following word that does not start with ``-``),
may be repeated (``-s trips -s orders``) and a value may hold several words (``-s "trips
orders"``); all of these are a union. ``--selector NAME`` is ``--select selector:NAME``
(and cannot be combined with ``--select``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click
import networkx as nx
import yaml

from maintainer.graph import NodeId, build_graph, restrict, select_nodes, topological_order
from maintainer.graph.select import SelectionContext
from maintainer.graph.state import StateComparison, read_state, table_checksum
from maintainer.logs import fields, get_logger
from maintainer.planning.builder import TableRequest, requests_from_nodes
from maintainer.project import Project, load_project
from maintainer.project.durations import parse_duration
from maintainer.project.gates import parse_size
from maintainer.project.profiles import PROFILES_DIR_ENV
from maintainer.project.selectors import load_selectors

log = get_logger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
PROJECT_DIR_ENV = "MAINTAINER_PROJECT_DIR"
SELECT_HELP = (
    "Nodes to include, several after one flag (--select trips tag:core): table name (glob) or "
    "table.service, tag:, path:, service:, state:modified|new (with --state), selector:NAME "
    "(selectors.yml); +x adds the tables x depends on, x+ those depending on it, N+x/x+N stop "
    "after N tables, @x both ways; x,y = intersection."
)


class MultiValueOption(click.Option):
    """A repeatable option that also takes every following word not starting with ``-``
    (``--select a b c`` as dbt's), each word one more value."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["multiple"] = True
        super().__init__(*args, **kwargs)

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        for name in self.opts:
            option = parser._long_opt.get(name) or parser._short_opt.get(name)
            if option is None:
                continue
            process = option.process

            def greedy(value: Any, state: Any, process: Callable[[Any, Any], None] = process) -> None:
                process(value, state)
                while state.rargs and not state.rargs[0].startswith("-"):
                    process(state.rargs.pop(0), state)

            option.process = greedy


@dataclass(frozen=True, slots=True)
class CommonOptions:
    project_dir: Path
    target: str | None = None
    vars: Mapping[str, Any] = field(default_factory=dict)
    select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    threads: int | None = None
    state: Path | None = None
    """--state: the folder of an earlier manifest.json, for state: selectors."""
    profiles_dir: Path | None = None


@dataclass(frozen=True)
class LoadedProject:
    """A validated project, its full graph, and the nodes the selection chose."""

    project: Project
    graph: nx.DiGraph
    selected: frozenset[NodeId]
    threads: int

    def selected_graph(self) -> nx.DiGraph:
        return self.graph if len(self.selected) == len(self.graph) else restrict(self.graph, self.selected)

    def selected_order(self) -> list[NodeId]:
        return [node for node in topological_order(self.graph) if node in self.selected]

    def table_requests(self) -> list[TableRequest]:
        """The selected nodes as one request per table (what ``plan`` and ``status`` read)."""
        order = self.selected_order()
        mor_only = [node for node in order if self.graph.nodes[node].get("mor_only")]
        return requests_from_nodes(self.project.tables_by_name, order, mor_only)


class ParsedType(click.ParamType):  # type: ignore[type-arg]
    """A value written as the manifests write it, read by the project's own parser (its
    ValueError becomes click's usage error)."""

    def __init__(self, name: str, parse: Callable[[object], Any]) -> None:
        self.name = name
        self._parse = parse

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value  # a default already parsed, or a value given by a caller
        try:
            return self._parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


BYTE_SIZE = ParsedType("size", parse_size)
"""``500MiB``, ``2GiB``, ``1.5TB`` or a number of bytes."""
DURATION = ParsedType("duration", parse_duration)
"""``30m``, ``1h``, ``7d``."""


def parse_vars(ctx: click.Context | None, param: click.Parameter | None, value: str | None) -> dict[str, Any]:
    """``--vars`` as a YAML or JSON mapping."""
    if not value:
        return {}
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"not valid YAML/JSON: {exc}", ctx=ctx, param=param) from None
    if not isinstance(parsed, dict):
        raise click.BadParameter(
            "must be a mapping, e.g. '{lake_root: s3://bucket/lake}'", ctx=ctx, param=param
        )
    return {str(key): item for key, item in parsed.items()}


def common_options(*, selection: bool = True) -> Callable[[F], F]:
    """Add the shared options to a click command; it receives ``options: CommonOptions``."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            select = _split(kwargs.pop("select", ()))
            selector = kwargs.pop("selector", None)
            if selector is not None:
                if select:
                    raise click.UsageError("give --selector NAME or --select, not both")
                select = (f"selector:{selector}",)
            state = kwargs.pop("state", None)
            profiles_dir = kwargs.pop("profiles_dir")
            options = CommonOptions(
                project_dir=Path(kwargs.pop("project_dir")),
                target=kwargs.pop("target"),
                vars=kwargs.pop("cli_vars"),
                select=select,
                exclude=_split(kwargs.pop("exclude", ())),
                threads=kwargs.pop("threads"),
                state=Path(state) if state else None,
                profiles_dir=Path(profiles_dir) if profiles_dir else None,
            )
            return command(*args, options=options, **kwargs)

        decorators = [
            click.option(
                "--project-dir",
                type=click.Path(file_okay=False, exists=True),
                default=".",
                envvar=PROJECT_DIR_ENV,
                show_default=True,
                help=f"The folder with maintainer_project.yml (or ${PROJECT_DIR_ENV}).",
            ),
            click.option(
                "--profiles-dir",
                type=click.Path(file_okay=False),
                metavar="DIR",
                help=f"Read profiles.yml from DIR (default: ${PROFILES_DIR_ENV} if it has one, "
                "then the project folder, then ~/.maintainer).",
            ),
            click.option(
                "--target", "-t", metavar="NAME", help="Output of the profile to use (default: its target)."
            ),
            click.option(
                "--vars",
                "cli_vars",
                metavar="YAML",
                callback=parse_vars,
                help="Variables for var() as YAML or JSON, overriding the project's vars.",
            ),
            click.option("--threads", type=click.IntRange(1, 256), help="Tables maintained in parallel."),
        ]
        if selection:
            decorators += [
                click.option("--select", "-s", cls=MultiValueOption, metavar="SELECTOR...", help=SELECT_HELP),
                click.option(
                    "--exclude",
                    cls=MultiValueOption,
                    metavar="SELECTOR...",
                    help="Nodes to leave out (same grammar; wins over --select).",
                ),
                click.option(
                    "--selector",
                    metavar="NAME",
                    help="Use the selection NAME of selectors.yml (instead of --select).",
                ),
                click.option(
                    "--state",
                    type=click.Path(file_okay=False),
                    metavar="DIR",
                    help="The folder of a manifest.json from an earlier `maintainer compile`, for "
                    "--select state:modified (tables changed since, or new) and state:new.",
                ),
            ]
        wrapped: Any = wrapper
        for decorator in reversed(decorators):
            wrapped = decorator(wrapped)
        return wrapped  # type: ignore[no-any-return]

    return decorate


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(value for value in values if value.strip())


def load_from_options(options: CommonOptions) -> LoadedProject:
    """Load and validate the project, compile its graph, and apply the selection."""
    project = load_project(
        options.project_dir, target=options.target, cli_vars=options.vars, profiles_dir=options.profiles_dir
    )
    graph = build_graph(project.tables, lambda table, index: project.location(table, ("depends_on", index)))
    context = SelectionContext(state=_state(project, options), selectors=load_selectors(project.root))
    selection = select_nodes(graph, options.select, options.exclude, context)
    for message in selection.unmatched:
        log.warning(message, extra=fields(event="unmatched_selection"))
    threads = options.threads or project.target.settings.threads
    return LoadedProject(project, graph, selection.nodes, threads)


def _state(project: Project, options: CommonOptions) -> StateComparison | None:
    if options.state is None:
        return None  # a state: selector then says it needs --state
    current = {spec.name: table_checksum(spec) for spec in project.tables}
    return read_state(options.state, current)


def parse_storage_options(
    ctx: click.Context | None, param: click.Parameter | None, values: tuple[str, ...]
) -> dict[str, str]:
    """``--storage-option KEY=VALUE`` (repeatable) as a mapping."""
    options: dict[str, str] = {}
    for value in values:
        key, sep, item = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", ctx=ctx, param=param)
        options[key.strip()] = item
    return options


def table_storage_options(*, by_name: bool = False) -> Callable[[F], F]:
    """Options of a command that opens one table by path (``inspect``, ``datagen``): the storage
    options of a project's target (``--project-dir``/``--target``, only when given) with
    ``--storage-option KEY=VALUE`` on top. The command receives ``storage_options``; with
    ``by_name``, also ``project_tables``: the project's table paths by table name (empty
    without a project)."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            project_dir, target = kwargs.pop("project_dir"), kwargs.pop("target")
            profiles_dir = kwargs.pop("profiles_dir")
            given = kwargs.pop("storage_option")
            options: dict[str, Any] = {}
            tables: dict[str, str] = {}
            if project_dir is not None:
                project = load_project(
                    Path(project_dir),
                    target=target,
                    profiles_dir=Path(profiles_dir) if profiles_dir else None,
                )
                options.update(project.target.settings.storage_options)
                tables = {table.name: table.path for table in project.tables}
            elif target is not None or profiles_dir is not None:
                given_option = "--target" if target is not None else "--profiles-dir"
                raise click.UsageError(f"{given_option} needs --project-dir (or $MAINTAINER_PROJECT_DIR)")
            if by_name:
                kwargs["project_tables"] = tables
            return command(*args, storage_options={**options, **given}, **kwargs)

        decorators = [
            click.option(
                "--project-dir",
                type=click.Path(file_okay=False, exists=True),
                envvar=PROJECT_DIR_ENV,
                help="Take the storage options of this project's target (profiles.yml).",
            ),
            click.option(
                "--profiles-dir",
                type=click.Path(file_okay=False),
                metavar="DIR",
                help="With --project-dir: read profiles.yml from DIR.",
            ),
            click.option("--target", "-t", metavar="NAME", help="With --project-dir: the profile's output."),
            click.option(
                "--storage-option",
                "storage_option",
                multiple=True,
                metavar="KEY=VALUE",
                callback=parse_storage_options,
                help="A pyarrow.fs option for the table's storage (repeatable), e.g. "
                "endpoint_override=http://127.0.0.1:8333 or region=eu-west-1 for s3://.",
            ),
        ]
        wrapped: Any = wrapper
        for decorator in reversed(decorators):
            wrapped = decorator(wrapped)
        return wrapped  # type: ignore[no-any-return]

    return decorate
