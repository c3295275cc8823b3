"""Secrets of the environment, and masking them wherever maintainer prints or writes.

As dbt does with ``DBT_ENV_SECRET_``, an environment variable named ``MAINTAINER_SECRET_*`` is
a secret, and so is the plan key (``MAINTAINER_PLAN_KEY``, or the content of the file
``MAINTAINER_PLAN_KEY_FILE`` names). Only ``profiles.yml`` may read a secret (``env_var()``,
e.g. storage credentials); a manifest, ``maintainer_project.yml`` or a defaults file that
renders one is refused (``maintainer.project.templating``).

Their values are replaced by :data:`MASK` at the output boundaries: everything the consoles
print (:mod:`maintainer.console`, the log lines and error messages included) and the files
maintainer writes (plan.md, plan_meta.json, manifest.json, run_results.json, ledger records),
and the text of an error that becomes a blocked node's reason in plan.json. A value shorter
than :data:`MIN_SECRET_CHARS` is not masked: it would mask ordinary words and numbers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

SECRET_PREFIX = "MAINTAINER_SECRET_"
PLAN_KEY_ENV = "MAINTAINER_PLAN_KEY"
PLAN_KEY_FILE_ENV = "MAINTAINER_PLAN_KEY_FILE"
MASK = "*****"
MIN_SECRET_CHARS = 6


def is_secret_name(name: str) -> bool:
    """Is the environment variable ``name`` a secret (``MAINTAINER_SECRET_*``, the plan key)?"""
    return name.startswith(SECRET_PREFIX) or name == PLAN_KEY_ENV


def secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each secret's value (long enough to mask) and the variable it comes from, longest first
    (so a secret that holds another is masked whole)."""
    environ = os.environ if environ is None else environ
    named = tuple(sorted((k, v) for k, v in environ.items() if is_secret_name(k)))
    return dict(_secrets(named, environ.get(PLAN_KEY_FILE_ENV) or None))


@lru_cache(maxsize=8)
def _secrets(named: tuple[tuple[str, str], ...], key_file: str | None) -> tuple[tuple[str, str], ...]:
    found = {value: name for name, value in named}
    if key_file is not None:
        try:
            key = Path(key_file).read_bytes().strip().decode("utf-8", errors="replace")
        except OSError:
            key = ""
        found.setdefault(key, PLAN_KEY_FILE_ENV)
    kept = [(value, name) for value, name in found.items() if len(value) >= MIN_SECRET_CHARS]
    return tuple(sorted(kept, key=lambda item: (-len(item[0]), item[0])))


def secrets_in(text: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """The names of the secrets whose value ``text`` holds."""
    return sorted({name for value, name in secrets(environ).items() if value in text})


def redact(text: str) -> str:
    """``text`` with the value of every secret replaced by :data:`MASK`."""
    for value in secrets():
        if value in text:
            text = text.replace(value, MASK)
    return text


def redact_tree(data: Any) -> Any:
    """A copy of JSON-like ``data`` (dicts, lists, strings) with every string (keys too)
    redacted; ``data`` itself when no secret is set."""
    if not secrets():
        return data
    return _redact_tree(data)


def _redact_tree(data: Any) -> Any:
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, Mapping):
        return {_redact_tree(key): _redact_tree(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_redact_tree(item) for item in data]
    return data
