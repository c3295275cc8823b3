"""Canonical JSON and the plan id.

The hashed body is JSON with sorted keys, no insignificant whitespace, UTF-8, and no
wall-clock values, so the same inputs on the same table state give the same bytes and id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
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


_INLINE = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(", ", ": ")
).encode


def _is_flat(value: dict[str, Any] | list[Any]) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return not any(isinstance(item, dict | list) for item in items)


def _pretty(value: Any, indent: str, parts: list[str]) -> None:
    if not isinstance(value, dict | list) or not value or _is_flat(value):
        parts.append(_INLINE(value))
        return
    inner = indent + "  "
    if isinstance(value, dict):
        parts.append("{")
        for index, key in enumerate(sorted(value)):
            parts.append(f"{',' if index else ''}\n{inner}{_INLINE(key)}: ")
            _pretty(value[key], inner, parts)
        parts.append(f"\n{indent}}}")
    else:
        parts.append("[")
        for index, item in enumerate(value):
            parts.append(f"{',' if index else ''}\n{inner}")
            _pretty(item, inner, parts)
        parts.append(f"\n{indent}]")
