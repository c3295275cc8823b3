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
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

from maintainer.catalog import SERVICES
from maintainer.errors import FileExistsInStorageError, PlanError, StorageError
from maintainer.hudi.instant import Action, Instant, State
from maintainer.hudi.payloads import (
    decode_clean_metadata,
    decode_cleaner_plan,
    decode_commit_metadata,
    decode_compaction_plan,
)
from maintainer.hudi.timeline import Timeline
from maintainer.storage import Storage

PLAN_ID_KEY = "maintainer.plan_id"

Extractor = Callable[[bytes, str], Mapping[str, str] | None]


def _clean_plan_extra(data: bytes, where: str) -> Mapping[str, str] | None:
    plan = decode_cleaner_plan(data, where)
    return plan.extra_metadata if plan is not None else None


def _clean_metadata_extra(data: bytes, where: str) -> Mapping[str, str] | None:
    metadata = decode_clean_metadata(data, where)
    return metadata.extra_metadata if metadata is not None else None


def _compaction_plan_extra(data: bytes, where: str) -> Mapping[str, str] | None:
    plan = decode_compaction_plan(data, where)
    return plan.extra_metadata if plan is not None else None


def _commit_extra(data: bytes, where: str) -> Mapping[str, str] | None:
    return decode_commit_metadata(data, where).extra_metadata


_EXTRA_METADATA: dict[tuple[Action, State], Extractor] = {
    (Action.CLEAN, State.REQUESTED): _clean_plan_extra,
    (Action.CLEAN, State.COMPLETED): _clean_metadata_extra,
    (Action.COMPACTION, State.REQUESTED): _compaction_plan_extra,
    (Action.COMPACTION, State.COMPLETED): _commit_extra,
}
"""Which state file of which action carries extraMetadata, and how to read it."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """An instant of the table that carries the plan id."""

    instant: Instant
    completed: bool


def plan_id_of_instant(storage: Storage, timeline: Timeline, instant: Instant) -> str | None:
    """The plan id an instant carries: from its completed file when completed, else from its
    requested plan; None for instants maintainer did not write."""
    entry = timeline.entry(instant.timestamp, instant.action)
    if entry is None:
        return None
    for state in (State.COMPLETED, State.REQUESTED):
        extract = _EXTRA_METADATA.get((instant.action, state))
        if extract is None or state not in entry.state_files:
            continue
        path = f"{timeline.directory}/{entry.state_files[state]}"
        extra = extract(storage.read_bytes(path), storage.uri(path))
        if extra is not None and PLAN_ID_KEY in extra:
            return extra[PLAN_ID_KEY]
    return None


SERVICE_ACTIONS: dict[str, tuple[Action, ...]] = {
    service.name: tuple(Action(action) for action in service.ledger_actions)
    for service in SERVICES
    if service.ledger_actions
}
"""The actions whose instants record which plan a service node's apply came from."""


def find_plan(
    storage: Storage, timeline: Timeline, plan_id: str, actions: tuple[Action, ...] | None = None
) -> list[LedgerEntry]:
    """Every instant of the active timeline (of ``actions``, default: all that record one)
    that carries ``plan_id``."""
    actions = actions or tuple({action for action, _ in _EXTRA_METADATA})
    return [
        LedgerEntry(instant, instant.is_completed)
        for instant in timeline.of_action(*actions)
        if plan_id_of_instant(storage, timeline, instant) == plan_id
    ]


def is_applied(
    storage: Storage, timeline: Timeline, plan_id: str, actions: tuple[Action, ...] | None = None
) -> Instant | None:
    """The completed instant that shows the plan was applied, or None."""
    for entry in find_plan(storage, timeline, plan_id, actions):
        if entry.completed:
            return entry.instant
    return None


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
        return json.dumps(asdict(self), sort_keys=True, indent=2).encode() + b"\n"

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
