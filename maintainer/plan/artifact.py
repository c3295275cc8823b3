"""The plan directory: ``plan.json`` (hashed), ``plan.md``, the Hudi payloads, ``plan_meta.json``.

The plan id is the hash of the body; the payloads carry the plan id (so a table records which
plan was applied to it), so their sha256 cannot be in the body: ``plan.json`` keeps them in a
top-level ``payloads`` map beside ``plan_id``, both outside the hash. Making a plan is thus:
``plan_id_of(plan)``, build the payloads with it, ``write_plan``.

Reading a plan checks everything apply relies on: the format version, the plan id against
the canonical body, and every payload the nodes name against its recorded hash (apply also
rebuilds each payload from the body and compares bytes). Run-time facts (when, by whom,
which tool version) live in ``plan_meta.json``, outside the hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maintainer.errors import PlanError
from maintainer.plan.canonical import PLAN_ID_FIELD, compute_plan_id, pretty_json
from maintainer.plan.model import FORMAT_VERSION, Plan

PLAN_FILE = "plan.json"
REVIEW_FILE = "plan.md"
META_FILE = "plan_meta.json"
PAYLOAD_DIR = "payloads"
PAYLOAD_HASHES_FIELD = "payloads"
"""Top-level field of plan.json: payload name -> sha256 (outside the hashed body)."""


@dataclass(frozen=True)
class SavedPlan:
    plan: Plan
    plan_id: str
    payloads: Mapping[str, bytes]
    directory: Path


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan_id_of(plan: Plan) -> str:
    """The id the plan will have (the hash of its body), before any payload is built."""
    return compute_plan_id(plan.body())


def _unsigned_body(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in (PLAN_ID_FIELD, PAYLOAD_HASHES_FIELD)}


def write_plan(
    directory: Path, plan: Plan, payloads: Mapping[str, bytes], review: str, meta: Mapping[str, Any]
) -> str:
    """Write the plan directory (replacing an older plan there); returns the plan id.
    ``payloads`` must hold exactly the payloads the nodes name."""
    body = plan.body()
    plan_id = compute_plan_id(body)
    if sorted(payloads) != plan.payload_names():
        raise PlanError(
            f"payloads {sorted(payloads)} do not match those the plan's nodes name {plan.payload_names()}",
            hint="this is a bug in maintainer: please report it",
        )
    hashes = {name: sha256_hex(data) for name, data in sorted(payloads.items())}
    directory.mkdir(parents=True, exist_ok=True)
    payload_dir = directory / PAYLOAD_DIR
    if payload_dir.exists():
        for stale in payload_dir.iterdir():
            stale.unlink()
    payload_dir.mkdir(exist_ok=True)
    for name, data in sorted(payloads.items()):
        (payload_dir / name).write_bytes(data)
    stored = {**body, PLAN_ID_FIELD: plan_id, PAYLOAD_HASHES_FIELD: hashes}
    (directory / PLAN_FILE).write_text(pretty_json(stored), encoding="utf-8")
    (directory / REVIEW_FILE).write_text(review, encoding="utf-8")
    (directory / META_FILE).write_text(pretty_json({**meta, PLAN_ID_FIELD: plan_id}), encoding="utf-8")
    return plan_id


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise PlanError(
            f"no plan found: {path} does not exist",
            hint="run `maintainer plan --out DIR` first, then apply that DIR",
        ) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PlanError(f"{path} is not valid JSON: {exc}", hint="make the plan again") from exc
    if not isinstance(data, dict):
        raise PlanError(f"{path} is not a plan (expected a JSON object)")
    return data


def _payload_hashes(data: Mapping[str, Any], where: Path) -> dict[str, str]:
    hashes = data.get(PAYLOAD_HASHES_FIELD, {})
    if not isinstance(hashes, dict) or not all(isinstance(v, str) for v in hashes.values()):
        raise PlanError("plan.json: 'payloads' must map payload names to sha256 hashes", where=str(where))
    return {str(k): v for k, v in hashes.items()}


def _check_payloads(directory: Path, plan: Plan, hashes: Mapping[str, str]) -> dict[str, bytes]:
    payloads: dict[str, bytes] = {}
    for table in plan.tables:
        for node in table.nodes:
            for name in node.payloads:
                path = directory / PAYLOAD_DIR / name
                digest = hashes.get(name)
                if digest is None or not path.is_file() or sha256_hex(path.read_bytes()) != digest:
                    raise PlanError(
                        f"payload {name} of node {node.id} is missing or was changed after planning",
                        where=str(path),
                        hint="plans are applied as reviewed: make the plan again and review it",
                    )
                payloads[name] = path.read_bytes()
    return payloads


def read_plan(directory: Path) -> SavedPlan:
    """Load and verify a saved plan; PlanError for anything tampered, truncated or foreign."""
    path = directory / PLAN_FILE
    data = _load_json(path)
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise PlanError(
            f"plan format version {version!r} is not supported (this maintainer reads {FORMAT_VERSION})",
            where=str(path),
            hint="make the plan again with this version of maintainer",
        )
    stored_id = data.get(PLAN_ID_FIELD)
    actual_id = compute_plan_id(_unsigned_body(data))
    if stored_id != actual_id:
        raise PlanError(
            "plan.json does not match its plan_id: it was changed after planning",
            where=str(path),
            hint="plans are applied exactly as reviewed; make the plan again and review it",
        )
    try:
        plan = Plan.from_body(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanError(f"plan.json is malformed: {exc}", where=str(path)) from exc
    hashes = _payload_hashes(data, path)
    return SavedPlan(plan, actual_id, _check_payloads(directory, plan, hashes), directory)
