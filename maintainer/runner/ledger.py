"""The table is the ledger: has this plan been applied to it already?

Apply writes the plan id into the ``extraMetadata`` of the Hudi payloads that carry one (the
clean plan and clean metadata, the compaction plan and the commit that completes it), under
:data:`PLAN_ID_KEY`. So any machine can tell, from
the table alone, that a plan was applied (a completed instant carries its id) or that an apply
of it was interrupted (only a pending instant carries it; the next apply finishes it, after
checking it is what the plan approved: the id alone proves nothing).

Rollback, archive and savepoint instants have no field for it, so every node with changes is
also recorded, once its work is done, in a write-once sidecar Hudi never reads:
``.hoodie/.maintainer/applied/<plan_id>/<service>.json`` (a directory: Hudi 0.x/1.x and
hudi-rs list only the files of ``.hoodie/`` or ``.hoodie/timeline/`` as instants, and
maintainer's own timeline listing skips directories too). A crash after a node's work but
before its record leaves the node to run again: it re-derives from the table, finds nothing
left to do, and is recorded then.

A record is believed only when it says what it records: this plan id, this table and service,
and the sha256 of each payload the node applies; with a plan key set, also an HMAC-SHA256 over
those fields (:func:`record_signature`). Anything else under the folder (any bytes, a record of
another node, an unsigned record where a key is set) is refused with :class:`PlanError`
naming the file: a forged record would otherwise make apply skip a node it never ran.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from maintainer.catalog import installed
from maintainer.errors import CorruptFileError, FileExistsInStorageError, PlanError, StorageError
from maintainer.hudi.instants.instant import Action
from maintainer.secrets import redact_tree
from maintainer.storage import Storage
from maintainer.storage.limits import MAX_RECORD_BYTES, loads_bounded, read_capped


def ledger_actions(service: str) -> tuple[Action, ...]:
    """The actions whose instants record which plan a service node's apply came from (none:
    only the sidecar record does)."""
    declared = installed().by_name.get(service)
    return () if declared is None else tuple(Action(action) for action in declared.ledger_actions)


APPLIED_DIR = ".hoodie/.maintainer/applied"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """The sidecar saying one node of a plan was applied to its table."""

    plan_id: str
    table: str
    service: str
    finished_at: str
    summary: str
    payloads: Mapping[str, str] = field(default_factory=dict)
    """Payload file name -> sha256, of the payloads the node applies."""
    signature: str = ""
    """``hmac-sha256:<hex>`` over the other fields, when a plan key is set."""

    def encode(self) -> bytes:
        fields = redact_tree(asdict(self))
        if not self.signature:
            fields.pop("signature")
        return json.dumps(fields, sort_keys=True, indent=2).encode() + b"\n"

    def signed(self, key: bytes | None) -> NodeRecord:
        return replace(self, signature=record_signature(self, key)) if key else self

    @classmethod
    def decode(cls, data: bytes) -> NodeRecord | None:
        """None for bytes that are not a record (never written half: created whole, write-once)."""
        try:
            raw = loads_bounded(
                data, what="the ledger record", where=APPLIED_DIR, error=CorruptFileError, hint=""
            )
            if not isinstance(raw, dict):
                return None
            texts = [raw[name] for name in ("plan_id", "table", "service", "finished_at", "summary")]
            hashes, signature = raw.get("payloads", {}), raw.get("signature", "")
        except (CorruptFileError, KeyError):
            return None
        if not all(isinstance(text, str) for text in [*texts, signature]) or not _is_hash_map(hashes):
            return None
        plan_id, table, service, finished_at, summary = texts
        return cls(plan_id, table, service, finished_at, summary, dict(hashes), signature)


def _is_hash_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def record_signature(record: NodeRecord, key: bytes) -> str:
    """``hmac-sha256:<hex>`` over every field of the record but its signature."""
    fields = {name: value for name, value in redact_tree(asdict(record)).items() if name != "signature"}
    message = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return "hmac-sha256:" + hmac.new(key, message, hashlib.sha256).hexdigest()


def payload_hashes(names: tuple[str, ...], payloads: Mapping[str, bytes]) -> dict[str, str]:
    """name -> sha256 of the node's payloads (a name the plan lacks hashes as empty bytes: the
    plan's own check refuses such a plan before this matters)."""
    return {name: hashlib.sha256(payloads.get(name, b"")).hexdigest() for name in names}


def record_path(plan_id: str, service: str) -> str:
    """``.hoodie/.maintainer/applied/<plan_id>/<service>.json``; both parts must be plain names
    (a plan id is a hex digest; a service name a registered identifier)."""
    for part in (plan_id, service):
        if not _SAFE_NAME.match(part):
            raise PlanError(
                f"{part!r} cannot name a ledger record (letters, digits, '_' and '-' only)",
                hint="the plan was edited: make the plan again and review it",
            )
    return f"{APPLIED_DIR}/{plan_id}/{service}.json"


def read_record(storage: Storage, plan_id: str, service: str) -> NodeRecord | None:
    """The node's record as stored (None: there is none); PlanError for a file there that is
    not a record. Whether to believe it is :func:`check_record`'s."""
    path = record_path(plan_id, service)
    try:
        data = read_capped(storage, path, MAX_RECORD_BYTES, what="ledger record", error=CorruptFileError)
    except CorruptFileError:  # larger than any record
        raise _forged(
            storage, path, f"it is larger than any ledger record ({MAX_RECORD_BYTES:,} bytes)"
        ) from None
    except StorageError:
        if not storage.exists(path):
            return None
        raise
    record = NodeRecord.decode(data)
    if record is None:
        raise _forged(storage, path, "it is not a ledger record maintainer writes")
    return record


def check_record(storage: Storage, record: NodeRecord, expected: NodeRecord, key: bytes | None) -> NodeRecord:
    """``record`` if it records the node ``expected`` describes (plan id, table, service, payload
    hashes; with ``key``, its HMAC); PlanError naming the file otherwise."""
    path = record_path(expected.plan_id, expected.service)
    claimed = (record.plan_id, record.table, record.service, dict(record.payloads))
    wanted = (expected.plan_id, expected.table, expected.service, dict(expected.payloads))
    if claimed != wanted:
        return_error = (
            "it does not record this node of this plan (plan id, table, service or payload hashes differ)"
        )
        raise _forged(storage, path, return_error)
    if key is not None and not hmac.compare_digest(record.signature, record_signature(record, key)):
        raise _forged(storage, path, "its signature does not match the plan key (or it is unsigned)")
    return record


def _forged(storage: Storage, path: str, why: str) -> PlanError:
    return PlanError(
        f"the ledger record of this plan's node cannot be trusted: {why}",
        where=storage.uri(path),
        hint="maintainer did not write it for this plan, so the node may never have run: find out "
        "who wrote it, delete it, then apply again (or make a new plan)",
    )


def write_record(storage: Storage, record: NodeRecord) -> None:
    """Record a node as applied, write-once (already recorded: nothing to do)."""
    try:
        storage.write_if_absent(record_path(record.plan_id, record.service), record.encode())
    except FileExistsInStorageError:
        return
