"""Canonical JSON and the plan id.

The hashed body is JSON with sorted keys, no insignificant whitespace, UTF-8, and no
wall-clock values, so the same inputs on the same table state give the same bytes and id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

PLAN_ID_FIELD = "plan_id"


def canonical_json(value: Any) -> bytes:
    """The canonical encoding of a JSON value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def compute_plan_id(body: Mapping[str, Any]) -> str:
    """sha256 of the canonical body (without its ``plan_id`` field)."""
    return id_of_canonical(canonical_body(body))


def canonical_body(body: Mapping[str, Any]) -> bytes:
    """The canonical encoding of the body without its ``plan_id`` field (what the id hashes)."""
    return canonical_json({k: v for k, v in body.items() if k != PLAN_ID_FIELD})


def id_of_canonical(canonical: bytes) -> str:
    """The plan id of a body's :func:`canonical_body` bytes."""
    return hashlib.sha256(canonical).hexdigest()


def pretty_json(value: Any) -> str:
    """The stored, human-readable form: sorted keys, two-space indent, and every object or
    list that holds no other (an action, a list of paths) on one line; a trailing newline.
    Parses to the same value as ``value``; one action per line reads well in a diff, and
    writes a plan of 500,000 actions in a fraction of what a fully indented dump takes."""
    parts: list[str] = []
    _pretty(value, "", parts)
    parts.append("\n")
    return "".join(parts)


_FLUSH_PARTS = 8192
"""Pieces of text :func:`write_pretty_json` gathers before it writes them out."""


def write_pretty_json(path: Path, value: Any) -> None:
    """Write :func:`pretty_json` of ``value`` to ``path`` (UTF-8) as it is made, a few thousand
    pieces at a time: a plan of 500,000 actions is never whole in memory as text (its string
    and its encoding were about 300 bytes per action at the peak of ``maintainer plan``)."""
    with path.open("w", encoding="utf-8") as out:
        parts: list[str] = []

        def flush() -> None:
            out.write("".join(parts))
            parts.clear()

        _pretty(value, "", parts, flush)
        parts.append("\n")
        flush()


def _public_inline() -> Callable[[Any], str]:
    return json.JSONEncoder(
        sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(", ", ": ")
    ).encode


def _reused_inline() -> Callable[[Any], str] | None:
    """The same one-line encoding through CPython's C encoder made once (``JSONEncoder.encode``
    makes one per call: a third of writing a plan of many actions); None where the interpreter
    has no C encoder, or its encoder does not write a probe exactly as the public one does."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    refuse = json.JSONEncoder().default  # what is not JSON: the public encoder's TypeError
    try:  # markers None: no cycle check (a plan body is a tree)
        encoder = make(None, refuse, json.encoder.encode_basestring, None, ": ", ", ", True, False, False)
    except TypeError:
        return None

    def inline(value: Any) -> str:
        return "".join(encoder(value, 0))

    try:
        return inline if inline(_PROBE) == _PROBE_TEXT else None
    except (TypeError, ValueError):
        return None


_PROBE = {"b": [1, -2.5, 1e300, None, True, False], "a": {"é ☃": 'q"\\\n\t'}, "": []}
_PROBE_TEXT = '{"": [], "a": {"é ☃": "q\\"\\\\\\n\\t"}, "b": [1, -2.5, 1e+300, null, true, false]}'
"""How the public encoder writes :data:`_PROBE` on one line."""


_INLINE = _reused_inline() or _public_inline()
_CONTAINERS = frozenset((dict, list))


def _is_flat(value: dict[str, Any] | list[Any]) -> bool:
    """No object or list inside (JSON values: plain dicts and lists)."""
    items = value.values() if isinstance(value, dict) else value
    return _CONTAINERS.isdisjoint(map(type, items))


def _pretty(value: Any, indent: str, parts: list[str], flush: Callable[[], None] | None = None) -> None:
    """Append the pretty text of ``value`` to ``parts``; ``flush`` (given) empties them into the
    output whenever a list has added :data:`_FLUSH_PARTS` pieces."""
    if not isinstance(value, dict | list) or not value or _is_flat(value):
        parts.append(_INLINE(value))
        return
    inner = indent + "  "
    if isinstance(value, dict):
        parts.append("{")
        for index, key in enumerate(sorted(value)):
            parts.append(f"{',' if index else ''}\n{inner}{_INLINE(key)}: ")
            _pretty(value[key], inner, parts, flush)
        parts.append(f"\n{indent}}}")
    else:
        parts.append("[")
        separator = f",\n{inner}"
        for index, item in enumerate(value):
            parts.append(separator if index else f"\n{inner}")
            if type(item) in _CONTAINERS and item and _is_flat(item):
                parts.append(_INLINE(item))  # an action: one line, no call per item
            else:
                _pretty(item, inner, parts, flush)
            if flush is not None and len(parts) >= _FLUSH_PARTS:
                flush()
        parts.append(f"\n{indent}]")
