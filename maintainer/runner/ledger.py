"""The table is the ledger: has this plan been applied to it already?

Apply writes the plan id into the ``extraMetadata`` of the Hudi payloads that carry one (the
clean plan and clean metadata, the compaction plan and the commit that completes it), under
:data:`PLAN_ID_KEY`. So any machine can tell, from
the table alone, that a plan was applied (a completed instant carries its id) or that an apply
of it was interrupted (only a pending instant carries it; the next apply finishes it).

Rollback, archive and savepoint instants have no field for it, so every node with changes is
also recorded, once its work is done, in a write-once sidecar Hudi never reads:
``.hoodie/.maintainer/applied/<plan_id>/<service>.json`` (a directory: Hudi 0.x/1.x and
hudi-rs list only the files of ``.hoodie/`` or ``.hoodie/timeline/`` as instants, and
maintainer's own timeline listing skips directories too). A crash after a node's work but
before its record leaves the node to run again: it re-derives from the table, finds nothing
left to do, and is recorded then.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

from maintainer.catalog import SERVICES
from maintainer.errors import FileExistsInStorageError, PlanError, StorageError
from maintainer.hudi.instant import Action
from maintainer.secrets import redact_tree
from maintainer.storage import Storage

SERVICE_ACTIONS: dict[str, tuple[Action, ...]] = {
    service.name: tuple(Action(action) for action in service.ledger_actions)
    for service in SERVICES
    if service.ledger_actions
}
"""The actions whose instants record which plan a service node's apply came from."""


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

    def encode(self) -> bytes:
        return json.dumps(redact_tree(asdict(self)), sort_keys=True, indent=2).encode() + b"\n"

    @classmethod
    def decode(cls, data: bytes) -> NodeRecord | None:
        """None for an unreadable record (never written half: it is created whole, write-once)."""
        try:
            raw = json.loads(data)
            return cls(
                *(str(raw[name]) for name in ("plan_id", "table", "service", "finished_at", "summary"))
            )
        except (ValueError, KeyError, TypeError):
            return None


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
    """The record of the node, if it was applied (an unreadable one counts as applied: only a
    completed node writes one)."""
    path = record_path(plan_id, service)
    try:
        data = storage.read_bytes(path)
    except StorageError:
        return None if not storage.exists(path) else NodeRecord(plan_id, "", service, "unknown", "unreadable")
    return NodeRecord.decode(data) or NodeRecord(plan_id, "", service, "unknown", "unreadable")


def write_record(storage: Storage, record: NodeRecord) -> None:
    """Record a node as applied, write-once (already recorded: nothing to do)."""
    try:
        storage.write_if_absent(record_path(record.plan_id, record.service), record.encode())
    except FileExistsInStorageError:
        return
