"""Logging: what the library reports goes through :mod:`logging`, so a host (Airflow, Dagster, a
script) captures and routes it with its own handlers; the command line renders the same records
on its consoles (text, or ``--log-format json``).

* Logger names follow the package: ``maintainer.runner.apply``, ``maintainer.runner.lock``,
  ``maintainer.planning.builder``, ``maintainer.commands.progress``, ... (``get_logger(__name__)``);
  ``logging.getLogger("maintainer")`` is the parent of them all.
* Nothing is printed on import: ``maintainer`` gets a :class:`logging.NullHandler`, as libraries do;
  the CLI installs its handler for the length of one invocation.
* The structured fields of a record (:data:`FIELDS`: ``table``, ``service``, ``instant``,
  ``plan_id``, ``node``, ``event``) are attributes of the record, set through ``extra`` by
  :func:`fields`, so a call site stays one line:
  ``log.warning("...", extra=fields(node=node_id, instant=instant))``; an event's other figures
  are in ``record.data`` (a dict).
* Secrets are masked in the record itself (its message, fields and data) before any handler sees
  it (:class:`MaskSecrets`, on every logger :func:`get_logger` returns).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from typing import Any

from maintainer.secrets import redact, redact_tree, secrets

ROOT = "maintainer"
FIELDS = ("table", "service", "instant", "plan_id", "node", "event")
"""The structured fields a record may carry, each an attribute of the record (or absent)."""
DATA = "data"
"""The record attribute holding an event's other figures (a dict), flattened into JSON lines."""
MARKUP = "markup"
"""The record attribute holding the rich-markup text a terminal shows (colours), if any."""
_LEVELS = {logging.WARNING: "warn"}
_CORE = ("ts", "level", "logger", "msg")


class MaskSecrets(logging.Filter):
    """Masks the value of every secret (:mod:`maintainer.secrets`) in a record's message, fields
    and data, in place: every handler, a host's included, receives the masked record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not secrets():
            return True
        record.msg, record.args = redact(record.getMessage()), None
        for name in (*FIELDS, MARKUP):
            value = getattr(record, name, None)
            if isinstance(value, str):
                setattr(record, name, redact(value))
        if isinstance(getattr(record, DATA, None), dict):
            setattr(record, DATA, redact_tree(getattr(record, DATA)))
        return True


def get_logger(name: str) -> logging.Logger:
    """The logger ``name`` (a module's ``__name__``), masking secrets in what it records."""
    logger = logging.getLogger(name)
    if not any(isinstance(found, MaskSecrets) for found in logger.filters):
        logger.addFilter(MaskSecrets())
    return logger


def fields(
    *,
    node: object = None,
    table: str | None = None,
    service: str | None = None,
    instant: str | None = None,
    plan_id: str | None = None,
    event: str | None = None,
    markup: str | None = None,
    **data: Any,
) -> dict[str, Any]:
    """The ``extra`` of a record: the fields given (``node``, a ``NodeId`` or ``"table.service"``,
    also fills ``table`` and ``service``), the rich text of a terminal (``markup``) and an event's
    other figures (``data``)."""
    if node is not None:
        table = table or getattr(node, "table", None) or str(node).rpartition(".")[0] or None
        service = service or getattr(node, "service", None) or str(node).rpartition(".")[2]
    given = {"table": table, "service": service, "instant": instant, "plan_id": plan_id,
             "node": None if node is None else str(node), "event": event, MARKUP: markup}  # fmt: skip
    extra: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    if data:
        extra[DATA] = data
    return extra


def _timestamp(created: float) -> str:
    moment = datetime.fromtimestamp(created, timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``ts`` (UTC), ``level`` (``info``, ``warn``, ``error``, ...),
    ``logger``, ``msg``, the structured fields it has and its event's data; secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        core = {
            "ts": _timestamp(record.created),
            "level": _LEVELS.get(record.levelno, record.levelname.lower()),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        given = {name: getattr(record, name) for name in FIELDS if getattr(record, name, None) is not None}
        data = getattr(record, DATA, None)
        extra = {k: v for k, v in data.items() if k not in _CORE} if isinstance(data, dict) else {}
        if record.exc_info:
            extra["exc"] = self.formatException(record.exc_info)
        text = json.dumps({**core, **given, **extra}, default=str)
        return json.dumps(redact_tree(json.loads(text))) if secrets() else text
