"""The plan directory: ``plan.json`` (hashed), ``plan.md``, the Hudi payloads, ``plan_meta.json``.

The plan id is the hash of the body; the payloads carry the plan id (so a table records which
plan was applied to it), so their sha256 cannot be in the body: ``plan.json`` keeps them in a
top-level ``payloads`` map beside ``plan_id``, both outside the hash. Making a plan is thus:
``plan_id_of(plan)``, build the payloads with it, ``write_plan``.

Reading a plan checks everything apply relies on: the format version, the plan id against
the canonical body, and every payload the nodes name against its recorded hash (apply also
rebuilds each payload from the body and compares bytes). Run-time facts (when, by whom,
which tool version) live in ``plan_meta.json``, outside the hash.

Tamper evidence for teams that want it: with ``MAINTAINER_PLAN_KEY`` (or a file named by
``MAINTAINER_PLAN_KEY_FILE``) set at plan time, ``plan.json`` carries a ``signature``, an
HMAC-SHA256 over the canonical body and the payload hashes (so the payload bytes are covered),
also outside the hash. The plan id alone is an unkeyed hash anyone who can edit the plan can
recompute; the signature needs the key. The key is never written anywhere. A signed plan is
read only with the key (signed means verified), unless the caller allows it unverified
(``apply --allow-unverified``, ``show``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maintainer import secrets
from maintainer.artifact.canonical import (
    PLAN_ID_FIELD,
    canonical_body,
    canonical_json,
    compute_plan_id,
    id_of_canonical,
    pretty_json,
    write_pretty_json,
)
from maintainer.artifact.model import FORMAT_VERSION, Plan, read_body_json
from maintainer.errors import PlanError
from maintainer.secrets import redact, redact_tree
from maintainer.storage.limits import (
    MAX_PAYLOAD_BYTES,
    MAX_PLAN_BYTES,
    loads_bounded,
    read_local_capped,
)

PLAN_FILE = "plan.json"
REVIEW_FILE = "plan.md"
META_FILE = "plan_meta.json"
PAYLOAD_DIR = "payloads"
PAYLOAD_HASHES_FIELD = "payloads"
"""Top-level field of plan.json: payload name -> sha256 (outside the hashed body)."""
SIGNATURE_FIELD = "signature"
"""Top-level field of plan.json: ``hmac-sha256:<hex>`` (outside the hashed body)."""
SIGNATURE_ALGORITHM = "hmac-sha256"
PLAN_KEY_ENV = secrets.PLAN_KEY_ENV
PLAN_KEY_FILE_ENV = secrets.PLAN_KEY_FILE_ENV
UNVERIFIED_WARNING = (
    f"signature not verified: no plan key is configured ({PLAN_KEY_ENV} or {PLAN_KEY_FILE_ENV}), "
    "only the plan id was checked"
)
UNSIGNED_WARNING = f"the plan is not signed, and {PLAN_KEY_ENV} is set: apply refuses it"


@dataclass(frozen=True)
class SavedPlan:
    plan: Plan
    plan_id: str
    payloads: Mapping[str, bytes]
    directory: Path
    warnings: tuple[str, ...] = ()
    """What reading could not check (e.g. a signed plan read without the key)."""
    unverified: bool = False
    """Signed, but read without a key (``allow_unverified``): its signature was not checked."""


def plan_key() -> bytes | None:
    """The signing key: ``MAINTAINER_PLAN_KEY``, else the file ``MAINTAINER_PLAN_KEY_FILE``
    names (its content, surrounding whitespace stripped); None when neither is set."""
    value = os.environ.get(PLAN_KEY_ENV)
    if value:
        return value.encode()
    file_name = os.environ.get(PLAN_KEY_FILE_ENV)
    if not file_name:
        return None
    try:
        key = Path(file_name).read_bytes().strip()
    except OSError as exc:
        raise PlanError(
            f"cannot read the plan key: {exc.strerror or exc}",
            where=file_name,
            hint=f"point {PLAN_KEY_FILE_ENV} at a readable file holding the key, or unset it",
        ) from exc
    if not key:
        raise PlanError(
            "the plan key file is empty",
            where=file_name,
            hint=f"put the key in it, or unset {PLAN_KEY_FILE_ENV}",
        )
    return key


def sign(body: Mapping[str, Any], payload_hashes: Mapping[str, str], key: bytes) -> str:
    """``hmac-sha256:<hex>`` over the canonical body and the payload hashes."""
    message = canonical_json({"body": dict(body), PAYLOAD_HASHES_FIELD: dict(payload_hashes)})
    return f"{SIGNATURE_ALGORITHM}:{hmac.new(key, message, hashlib.sha256).hexdigest()}"


def verify_signature(
    body: Mapping[str, Any], payload_hashes: Mapping[str, str], signature: object, key: bytes | None,
    where: Path, allow_unverified: bool = False, allow_unsigned: bool = False,
) -> tuple[str, ...]:  # fmt: skip
    """PlanError when a key is given and the plan is signed otherwise, or unsigned (unless
    ``allow_unsigned``), and when the plan is signed but no key is given (a signed plan is
    applied only once verified) unless ``allow_unverified``; the warnings (what was allowed)."""
    if key is None:
        if signature is None:
            return ()
        if allow_unverified:
            return (UNVERIFIED_WARNING,)
        raise PlanError(
            f"the plan is signed, but no key is configured to verify it ({PLAN_KEY_ENV} and "
            f"{PLAN_KEY_FILE_ENV} are unset or empty): a signed plan is applied only once verified",
            where=str(where),
            hint=f"set {PLAN_KEY_ENV} (or {PLAN_KEY_FILE_ENV}) to the key the plan was signed with; "
            "--allow-unverified applies it on its plan id alone, which anyone who can edit it recomputes",
        )
    if not isinstance(signature, str) or not signature:
        if allow_unsigned:
            return (UNSIGNED_WARNING,)
        raise PlanError(
            f"the plan is not signed, and {PLAN_KEY_ENV} is set: only signed plans are applied",
            where=str(where),
            hint=f"make the plan again with {PLAN_KEY_ENV} set (the same key), and review it",
        )
    expected = sign(body, payload_hashes, key)
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        raise PlanError(
            "the plan's signature does not match: it was changed after planning, or signed with another key",
            where=str(where),
            hint=f"make the plan again with this {PLAN_KEY_ENV} and review it; "
            "never apply a plan you did not review",
        )
    return ()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plan_id_of(plan: Plan) -> str:
    """The id the plan will have (the hash of its body), before any payload is built."""
    return compute_plan_id(plan.body())


def _unsigned_body(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in (PLAN_ID_FIELD, PAYLOAD_HASHES_FIELD, SIGNATURE_FIELD)}


def write_plan(
    directory: Path, plan: Plan, payloads: Mapping[str, bytes], review: str, meta: Mapping[str, Any],
    key: bytes | None = None, body: Mapping[str, Any] | None = None, plan_id: str | None = None,
) -> str:  # fmt: skip
    """Write the plan directory (replacing an older plan there); returns the plan id.
    ``payloads`` must hold exactly the payloads the nodes name; given a ``key``, the plan is
    signed with it. ``body``: ``plan.body()`` when the caller made it already (``build_plan``
    does, for the plan id), and ``plan_id`` the id it computed of that body: a plan of 500,000
    actions is then dumped and hashed once, not twice (an id that does not match its body is
    refused by ``read_plan``, so nothing is applied from it)."""
    if body is None:
        body, plan_id = plan.body(), None
    body = dict(body)
    plan_id = plan_id or compute_plan_id(body)
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
    if key is not None:
        stored[SIGNATURE_FIELD] = sign(body, hashes, key)
    write_pretty_json(directory / PLAN_FILE, stored)
    (directory / REVIEW_FILE).write_text(redact(review), encoding="utf-8")
    meta_json = pretty_json(redact_tree({**meta, PLAN_ID_FIELD: plan_id}))
    (directory / META_FILE).write_text(meta_json, encoding="utf-8")
    return plan_id


MAX_META_BYTES = 16 * 1024 * 1024
_REMAKE_HINT = "make the plan again (`maintainer plan`) and review it"


def read_meta(directory: Path) -> dict[str, Any]:
    """plan_meta.json: what the plan directory says of itself beyond the hashed body (version,
    provenance, manifest changes). Informational only (apply never acts on it): missing,
    unreadable, too large, too deep or not JSON gives an empty mapping."""
    path = directory / META_FILE
    try:
        raw = read_local_capped(path, MAX_META_BYTES, what=META_FILE, error=PlanError)
        data = loads_bounded(raw, what=META_FILE, where=str(path), error=PlanError, hint=_REMAKE_HINT)
    except (OSError, PlanError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_capped(path: Path, cap: int, what: str) -> bytes:
    """A file of the plan directory, at most ``cap`` bytes (PlanError naming it otherwise)."""
    try:
        return read_local_capped(path, cap, what=what, error=PlanError, hint=_REMAKE_HINT)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise PlanError(
            f"cannot read {what}: {exc.strerror or exc}", where=str(path), hint=_REMAKE_HINT
        ) from exc


def _load_json(path: Path) -> dict[str, Any]:
    """plan.json: at most MAX_PLAN_BYTES, nested at most MAX_JSON_DEPTH deep, no number longer
    than MAX_NUMBER_CHARS, no NaN or Infinity (:mod:`maintainer.storage.limits`)."""
    try:
        raw = _read_capped(path, MAX_PLAN_BYTES, PLAN_FILE)
    except FileNotFoundError as exc:
        raise PlanError(
            f"no plan found: {path} does not exist",
            hint="run `maintainer plan --out DIR` first, then apply that DIR",
        ) from exc
    data = loads_bounded(raw, what=PLAN_FILE, where=str(path), error=PlanError, hint=_REMAKE_HINT)
    if not isinstance(data, dict):
        raise PlanError(f"{path} is not a plan (expected a JSON object)")
    return data


def _payload_hashes(data: Mapping[str, Any], where: Path) -> dict[str, str]:
    hashes = data.get(PAYLOAD_HASHES_FIELD, {})
    if not isinstance(hashes, dict) or not all(isinstance(v, str) for v in hashes.values()):
        raise PlanError("plan.json: 'payloads' must map payload names to sha256 hashes", where=str(where))
    return {str(k): v for k, v in hashes.items()}


def _read_payload(path: Path) -> bytes | None:
    """A payload's bytes (at most MAX_PAYLOAD_BYTES: PlanError otherwise); None where it is gone."""
    try:
        return _read_capped(path, MAX_PAYLOAD_BYTES, "plan payload")
    except FileNotFoundError:
        return None


def _check_payloads(directory: Path, plan: Plan, hashes: Mapping[str, str]) -> dict[str, bytes]:
    payloads: dict[str, bytes] = {}
    for table in plan.tables:
        for node in table.nodes:
            for name in node.payloads:
                path = directory / PAYLOAD_DIR / name
                digest = hashes.get(name)
                data = _read_payload(path) if digest is not None and path.is_file() else None
                if data is None or sha256_hex(data) != digest:
                    raise PlanError(
                        f"payload {name} of node {node.id} is missing or was changed after planning",
                        where=str(path),
                        hint="plans are applied as reviewed: make the plan again and review it",
                    )
                payloads[name] = data
    return payloads


def read_plan(
    directory: Path, key: bytes | None = None, *, allow_unverified: bool = False, allow_unsigned: bool = False
) -> SavedPlan:
    """Load and verify a saved plan; PlanError for anything tampered, truncated or foreign,
    (given the signing ``key``) for a plan not signed with it (unsigned: unless
    ``allow_unsigned``), and (without a key) for a signed plan unless ``allow_unverified``.
    ``show`` allows both (it applies nothing, and says so); ``apply`` neither, but for
    ``--allow-unverified``."""
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
    canonical = canonical_body(_unsigned_body(data))
    actual_id = id_of_canonical(canonical)
    if stored_id != actual_id:
        raise PlanError(
            "plan.json does not match its plan_id: it was changed after planning",
            where=str(path),
            hint="plans are applied exactly as reviewed; make the plan again and review it",
        )
    try:
        plan = read_body_json(canonical)  # the bytes just hashed: what is read is what matched
    except ValueError as exc:
        raise PlanError(
            f"plan.json is malformed: {exc}",
            where=str(path),
            hint="make the plan again with this version of maintainer and review it",
        ) from exc
    hashes = _payload_hashes(data, path)
    signature = data.get(SIGNATURE_FIELD)
    warnings = verify_signature(
        _unsigned_body(data), hashes, signature, key, path, allow_unverified, allow_unsigned
    )
    payloads = _check_payloads(directory, plan, hashes)
    unverified = key is None and signature is not None
    return SavedPlan(plan, actual_id, payloads, directory, warnings, unverified)
