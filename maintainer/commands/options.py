"""The options every project command shares, and loading the project from them.

``@common_options()`` adds ``--project-dir``, ``--target``, ``--vars``, ``--threads`` and
(unless ``selection=False``) ``--select``/``--exclude``; the command receives them as one
``options: CommonOptions`` argument. ``load_from_options(options)`` loads and validates
the project, compiles the graph and applies the selection.
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

from maintainer.console import print_warning
from maintainer.graph import NodeId, build_graph, restrict, select_nodes, topological_order
from maintainer.project import Project, load_project

F = TypeVar("F", bound=Callable[..., Any])
PROJECT_DIR_ENV = "MAINTAINER_PROJECT_DIR"


@dataclass(frozen=True, slots=True)
class CommonOptions:
    project_dir: Path
    target: str | None = None
    vars: Mapping[str, Any] = field(default_factory=dict)
    select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    threads: int | None = None


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
            options = CommonOptions(
                project_dir=Path(kwargs.pop("project_dir")),
                target=kwargs.pop("target"),
                vars=kwargs.pop("cli_vars"),
                select=_split(kwargs.pop("select", ())),
                exclude=_split(kwargs.pop("exclude", ())),
                threads=kwargs.pop("threads"),
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
                click.option(
                    "--select",
                    "-s",
                    multiple=True,
                    metavar="SELECTOR",
                    help="Nodes to include (dbt grammar: name, tag:, path:, service:, +, @; "
                    "space = union, comma = intersection).",
                ),
                click.option("--exclude", multiple=True, metavar="SELECTOR", help="Nodes to leave out."),
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
    project = load_project(options.project_dir, target=options.target, cli_vars=options.vars)
    graph = build_graph(project.tables, lambda table, index: project.location(table, ("depends_on", index)))
    selection = select_nodes(graph, options.select, options.exclude)
    for message in selection.unmatched:
        print_warning(message)
    threads = options.threads or project.target.settings.threads
    return LoadedProject(project, graph, selection.nodes, threads)
