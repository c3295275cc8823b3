"""The command line's rendering of the library's log records (:mod:`maintainer.logs`) on its
consoles, installed for one invocation (:func:`console_logging`): a warning as
``warning: ...`` and an error as ``error: ...`` on stderr, anything else as a line on stdout (its
``markup`` at a terminal, in colour), or, with ``--log-format json``, one JSON object per
record on stdout (:class:`maintainer.logs.JsonFormatter`). A host's own handlers on
``maintainer`` (or the root logger) receive the same records."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.text import Text

from maintainer.console import literal, print_error, print_warning, printable, settings, stdout
from maintainer.logs import MARKUP, ROOT, JsonFormatter, fields


class ConsoleHandler(logging.Handler):
    """Prints records as the command line always has (``--quiet`` keeps warnings and errors)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.json = JsonFormatter()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._print(record)
        except Exception:  # a handler never raises into the code that logs
            self.handleError(record)

    def _print(self, record: logging.LogRecord) -> None:
        if settings.json:
            sys.stdout.write(self.json.format(record) + "\n")
            sys.stdout.flush()
        elif record.levelno >= logging.ERROR:
            print_error(record.getMessage())
        elif record.levelno >= logging.WARNING:
            print_warning(record.getMessage())
        else:
            markup = getattr(record, MARKUP, None)
            stdout.print(printable(markup) if isinstance(markup, str) else literal(record.getMessage()))


@contextmanager
def console_logging() -> Iterator[ConsoleHandler]:
    """The console handler on the ``maintainer`` logger while the block runs; the logger passes
    INFO records unless someone (a host) chose its level; both undone at the end."""
    logger = logging.getLogger(ROOT)
    handler = ConsoleHandler()
    level = logger.level
    if level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def log_event(logger: logging.Logger, event: str, markup: str, node: object = None, **data: Any) -> None:
    """An INFO record of ``event``: its message is ``markup`` as plain text, a terminal shows
    ``markup`` (colours), and ``node`` and ``data`` are its fields."""
    plain = Text.from_markup(markup).plain
    logger.info(plain, extra=fields(node=node, event=event, markup=markup, **data))
