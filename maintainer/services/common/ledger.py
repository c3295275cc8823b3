"""The table is the ledger: which instants carry the id of the plan whose apply wrote them.

Apply writes the plan id into the ``extraMetadata`` of the Hudi payloads that carry one (the
clean plan and clean metadata, the compaction plan and the commit that completes it), under
:data:`PLAN_ID_KEY`; the runner's ``ledger`` adds its sidecar records for the other services.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from maintainer.hudi.file_groups.integrity import completion_problem, is_interruptible
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline, TimelineEntry
from maintainer.hudi.payloads import (
    decode_clean_metadata,
    decode_cleaner_plan,
    decode_commit_metadata,
    decode_compaction_plan,
)
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


def _extra(
    storage: Storage, timeline: Timeline, entry: TimelineEntry, state: State
) -> Mapping[str, str] | None:
    extract = _EXTRA_METADATA.get((entry.instant.action, state))
    if extract is None or state not in entry.state_files:
        return None
    path = f"{timeline.directory}/{entry.state_files[state]}"
    return extract(storage.read_bytes(path), storage.uri(path))


def _plan_id_and_completion(
    storage: Storage, timeline: Timeline, instant: Instant
) -> tuple[str | None, bool]:
    """The plan id an instant carries (from its completed file when that decodes, else from
    its requested plan; None for instants maintainer did not write), and whether it is
    completed: a table service's completed file that does not decode beside its inflight file
    is a completion cut short (:func:`maintainer.hudi.file_groups.integrity.is_interruptible`), not done."""
    entry = timeline.entry(instant.timestamp, instant.action)
    if entry is None:
        return None, False
    completed = instant.is_completed
    extra = None
    if completed and is_interruptible(entry):
        path = f"{timeline.directory}/{entry.state_files[State.COMPLETED]}"
        completed = completion_problem(entry, storage.read_bytes(path), storage.uri(path)) is None
    if completed:
        extra = _extra(storage, timeline, entry, State.COMPLETED)
    if extra is None or PLAN_ID_KEY not in extra:
        extra = _extra(storage, timeline, entry, State.REQUESTED)
    plan_id = extra.get(PLAN_ID_KEY) if extra is not None else None
    return plan_id, completed


def plan_id_of_instant(storage: Storage, timeline: Timeline, instant: Instant) -> str | None:
    """The plan id an instant carries: from its completed file when completed, else from its
    requested plan; None for instants maintainer did not write."""
    return _plan_id_and_completion(storage, timeline, instant)[0]


def find_plan(
    storage: Storage, timeline: Timeline, plan_id: str, actions: tuple[Action, ...] | None = None
) -> list[LedgerEntry]:
    """Every instant of the active timeline (of ``actions``, default: all that record one)
    that carries ``plan_id``; completed only where its completed file decodes."""
    actions = actions or tuple({action for action, _ in _EXTRA_METADATA})
    found = []
    for instant in timeline.of_action(*actions):
        carried, completed = _plan_id_and_completion(storage, timeline, instant)
        if carried == plan_id:
            found.append(LedgerEntry(instant, completed))
    return found


def is_applied(
    storage: Storage, timeline: Timeline, plan_id: str, actions: tuple[Action, ...] | None = None
) -> Instant | None:
    """The completed instant that shows the plan was applied, or None."""
    for entry in find_plan(storage, timeline, plan_id, actions):
        if entry.completed:
            return entry.instant
    return None
