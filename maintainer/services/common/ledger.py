"""The table is the ledger: which instants carry the id of the plan whose apply wrote them.

Apply writes the plan id into the ``extraMetadata`` of the Hudi payloads that carry one (the
clean plan and clean metadata, the compaction plan and the commit that completes it), under
:data:`PLAN_ID_KEY`; the runner's ``ledger`` adds its sidecar records for the other services.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
