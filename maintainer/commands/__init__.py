"""The CLI commands, one module each, loaded when the command runs.

Each command module exposes a ``click.Command`` named ``command``. Add new modules to
``COMMANDS`` (in the order ``--help`` lists them) with the one-line help ``--help`` shows, so
that ``maintainer --help`` and ``--version`` import no command (a test holds each line equal
to its command's own short help).
"""

from __future__ import annotations

import importlib

import click

COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init_cmd", "Create a project: manifests, profiles, schemas and a CI workflow."),
    "validate": ("validate_cmd", "Check the project, its profile and every manifest (reads no table)."),
    "debug": ("debug_cmd", "Check that the target can run (JDK, Spark, storage) and say how to fix it."),
    "ls": ("ls_cmd", "List the (table, service) nodes that would run, in execution order."),
    "graph": ("graph_cmd", "Print the dependency graph of the selected nodes."),
    "compile": ("compile_cmd", "Resolve every selected table and write target/manifest.json."),
    "inspect": ("inspect_cmd", "Show one Hudi table's state: timeline, pending instants, file groups."),
    "datagen": ("datagen_cmd", "Write a real Hudi table with Spark, and the rows a reader must return."),
    "discover": ("discover_cmd", "Find the Hudi tables under a prefix and those no manifest covers."),
    "status": ("status_cmd", "Show the health of the selected tables: backlog, stuck instants, objectives."),
    "plan": ("plan_cmd", "Read the tables and write what maintenance would do; changes nothing."),
    "show": ("show_cmd", "Render a saved plan (text, Markdown or JSON), checked unchanged."),
    "apply": ("apply_cmd", "Carry out a reviewed plan, never doing more than it says."),
    "quarantine": ("quarantine_cmd", "List the orphan files apply quarantined, and move them back."),
    "demo": ("demo_cmd", "Run the whole story on generated tables with local Spark."),
}
"""Command name -> (module in this package, its one-line help)."""


def load_command(name: str) -> click.Command:
    """The command ``name``, its module imported now, with the output options added (and the
    service registry, which installs the catalog every command's lists derive from)."""
    import maintainer.services.registry  # noqa: F401
    from maintainer.commands.output import add_output_options

    module_name, help_line = COMMANDS[name]
    command: click.Command = importlib.import_module(f"maintainer.commands.{module_name}").command
    if command.short_help is None:  # first load
        add_output_options(command)
        command.short_help = help_line
    return command


class LazyCommandGroup(click.Group):
    """A group whose commands are imported when one is run (or asked for by name); its
    ``--help`` lists them from :data:`COMMANDS` without importing any."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            return load_command(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_line) for name, (_, help_line) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def register_commands(group: click.Group) -> None:
    """Add the output options to the group (its commands get them when loaded)."""
    from maintainer.commands.output import add_output_options

    add_output_options(group)
