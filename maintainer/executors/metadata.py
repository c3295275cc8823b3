"""The metadata node's executor for the compaction (the clean and the archival run through
``maintainer.services.metadata.clean`` and ``.archival``, on the data services' executors):
schedule it (or take the pending one) and run it through :mod:`maintainer.hudi.metadata.compaction`.
:class:`CompactionDecision` is what the metadata planner decides and this executor carries out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.metadata import compaction as mc
from maintainer.hudi.metadata import compaction_plan as mcp
from maintainer.hudi.metadata.commit import hfile_style
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.table import MetadataTable


@dataclass(frozen=True)
class CompactionDecision:
    """What a compaction of the metadata table would do now."""

    trigger: mcp.CompactionTrigger
    instant: str | None
    """The instant to compact at (pending or new); None: nothing to do."""
    pending: bool
    operations: tuple[mcp.FileGroupCompaction, ...]
    reason: str


def run_compaction(
    mdt: MetadataTable,
    decision: CompactionDecision,
    clock: Clock = utc_now,
    fault: Callable[[str], None] | None = None,
) -> mc.MetadataCompaction | None:
    """Carry out ``decision`` (taken on ``mdt`` as read now); None when it has nothing to do."""
    if decision.instant is None:
        return None
    schemas = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline)
    created = int(clock().timestamp() * 1000)
    settings = mc.base_file_settings(mdt, hfile_style(mdt), schemas.block_schema, created)
    if decision.pending:
        entry = mdt.state.snapshot.timeline.entry(decision.instant, Action.COMPACTION)
        assert entry is not None
        requested = entry.instant
    else:
        scheduled = mc.schedule_compaction(mdt, decision.instant, clock)
        if scheduled is None:
            return None
        requested = scheduled
        if fault is not None:
            fault("metadata_after_requested")
    return mc.execute_compaction(
        mdt, requested, settings, schemas.commit_schema, clock, fault, decision.pending
    )
