"""Shared rich consoles: results on stdout, diagnostics on stderr."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def print_error(message: str) -> None:
    """Print an error for a person: red 'error:' prefix, the message as given."""
    stderr.print(f"[bold red]error:[/bold red] {escape(message)}", markup=True, highlight=False)


def print_warning(message: str) -> None:
    stderr.print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)
