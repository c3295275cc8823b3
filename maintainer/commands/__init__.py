"""The CLI commands, one module each; ``register_commands`` adds them to the group.

Each command module exposes a ``click.Command`` named ``command``. Add new modules to
``COMMAND_MODULES`` (in the order ``--help`` lists them).
"""

from __future__ import annotations

import importlib

import click

COMMAND_MODULES: tuple[str, ...] = (
    "init_cmd",
    "validate_cmd",
    "debug_cmd",
    "ls_cmd",
    "graph_cmd",
    "compile_cmd",
    "inspect_cmd",
    "datagen_cmd",
    "plan_cmd",
    "show_cmd",
    "apply_cmd",
    "demo_cmd",
)


def register_commands(group: click.Group) -> None:
    """Add every command to ``group``; the group and each command take the output options."""
    from maintainer.commands.output import add_output_options

    add_output_options(group)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"maintainer.commands.{module_name}")
        add_output_options(module.command)
        group.add_command(module.command)
