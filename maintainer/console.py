"""Shared rich consoles: results on stdout, diagnostics on stderr, and how they print.

The command line's global options set the output once per invocation (:func:`configure`):

* ``--quiet``: only errors, warnings and each command's closing line (:func:`summary`);
* ``--no-color`` (or ``$NO_COLOR``): no colours or styles;
* ``--log-format json``: every line becomes one JSON object on stdout (``ts``, ``level``,
  ``msg``, and the fields of structured events such as a node's start and end), for log
  collectors; nothing else is printed.

Warnings and progress are log records (:mod:`maintainer.logs`), printed here by the CLI's
handler (:mod:`maintainer.commands.console_log`); results and the closing line are printed here.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any, TextIO, cast

from rich.console import Console
from rich.markup import escape

from maintainer.secrets import redact, redact_tree, secrets


class Redacted(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` (looked up at each write, as rich does by default, and
    past the proxy a progress display puts there, as rich does too: writing into it would print
    through the console again, forever), with the value of every secret masked
    (:func:`maintainer.secrets.redact`): what the consoles print, log lines and error messages
    included, never shows one."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def stream(self) -> TextIO:
        stream: TextIO = getattr(sys, self.name)
        proxied: TextIO = getattr(stream, "rich_proxied_file", stream)
        return proxied

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.stream.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()


_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab (escape sequences that move the
    cursor, erase lines or recolour the terminal; bidirectional overrides that reorder what is
    shown) written as a visible escape, e.g. ``\\x1b``: a name read from a table (a partition,
    a file) prints as what it is, and cannot hide or forge lines of the terminal review."""
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", text)  # fmt: skip


def literal(value: object) -> str:
    """``value`` for a rich string with markup on: printable, and its brackets escaped."""
    return escape(printable(str(value)))


def _redacted(name: str) -> IO[str]:
    return cast("IO[str]", Redacted(name))


stdout = Console(file=_redacted("stdout"), highlight=False, soft_wrap=True)
stderr = Console(file=_redacted("stderr"), stderr=True, highlight=False, soft_wrap=True)

LOG_FORMATS = ("text", "json")


@dataclass
class OutputSettings:
    quiet: bool = False
    log_format: str = "text"
    color: bool = True

    @property
    def json(self) -> bool:
        return self.log_format == "json"


settings = OutputSettings()


def _timestamp() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_line(stream: TextIO, record: dict[str, Any]) -> None:
    text = json.dumps({"ts": _timestamp(), **record}, default=str)
    if secrets():
        text = json.dumps(redact_tree(json.loads(text)))
    stream.write(text + "\n")
    stream.flush()


class JsonLines(io.TextIOBase):
    """A text stream that turns each line written into a JSON object on ``sys.stdout``."""

    def __init__(self, level: str) -> None:
        self.level = level
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if line.strip():
                _json_line(sys.stdout, {"level": self.level, "msg": line.rstrip()})
        return len(text)

    def flush(self) -> None:
        sys.stdout.flush()


def configure(*, quiet: bool = False, log_format: str = "text", color: bool = True) -> None:
    """Set how this invocation prints (the consoles are shared by every module)."""
    settings.quiet, settings.log_format, settings.color = quiet, log_format, color
    json_mode = log_format == "json"
    for console, level, stream in ((stdout, "info", "stdout"), (stderr, "warn", "stderr")):
        console.file = cast("IO[str]", JsonLines(level)) if json_mode else _redacted(stream)
        console.no_color = json_mode or not color
        console.quiet = False
    for console in (stdout, stderr):
        _set_colors(console, enabled=not json_mode and color)
    stdout.quiet = quiet and not json_mode


def _set_colors(console: Console, *, enabled: bool) -> None:
    """Colours and styles on (as detected for the stream) or off: rich decides its colour system
    when a console is made and offers no setter, so the attribute is set here, in one place."""
    console._color_system = console._detect_color_system() if enabled else None


def interactive() -> bool:
    """Is a person watching a terminal (progress bars), or is this a log (CI, a file)?"""
    return not settings.json and not settings.quiet and stderr.is_terminal


def print_error(message: str) -> None:
    """Print an error for a person: red 'error:' prefix, the message as given."""
    if settings.json:
        _json_line(sys.stdout, {"level": "error", "msg": message})
        return
    stderr.print(f"[bold red]error:[/bold red] {literal(message)}", markup=True, highlight=False)


def print_warning(message: str) -> None:
    if settings.json:
        _json_line(sys.stdout, {"level": "warn", "msg": message})
        return
    stderr.print(f"[yellow]warning:[/yellow] {literal(message)}", markup=True, highlight=False)


def print_notice(kind: str, message: str) -> None:
    """A line a person must see at once, even with --quiet (an interrupt being handled): on
    stderr, or a JSON ``warn`` event."""
    if settings.json:
        _json_line(sys.stdout, {"level": "warn", "event": kind, "msg": message})
        return
    stderr.print(f"[bold yellow]{literal(message)}[/bold yellow]", markup=True, highlight=False)
    stderr.file.flush()


def summary(text: str, **fields: Any) -> None:
    """A command's closing line: printed even with --quiet."""
    if settings.json:
        _json_line(sys.stdout, {"level": "info", "event": "summary", "msg": text, **fields})
        return
    with _loud():
        stdout.print(literal(text))


@contextmanager
def _loud() -> Iterator[None]:
    quiet = stdout.quiet
    stdout.quiet = False
    try:
        yield
    finally:
        stdout.quiet = quiet
