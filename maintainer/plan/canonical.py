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
    unsigned = {k: v for k, v in body.items() if k != PLAN_ID_FIELD}
    return hashlib.sha256(canonical_json(unsigned)).hexdigest()


def pretty_json(value: Any) -> str:
    """The stored, human-readable form: sorted keys, two-space indent, trailing newline."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
