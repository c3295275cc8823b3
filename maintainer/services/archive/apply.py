"""Apply an approved archive node: archive the approved instants still archivable."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace

from maintainer.artifact.model import ArchiveInstant, NodePlan
from maintainer.executors.archive.executor import ArchiveOutcome, run_archive
from maintainer.executors.archive.selection import ArchivePlanResult
from maintainer.executors.faults import Fault, maybe_fail, no_fault
from maintainer.hudi.table.snapshot import load_timeline
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.archive.effects import ArchiveApplyEffects
from maintainer.services.archive.node import (
    plan_archive_result,
)
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.common.metadata_table import open_for_apply, with_dropped
from maintainer.services.common.outcome import summary

SERVICE = "archive"


def execute_archive(ctx: NodeContext) -> NodeOutcome:
    """Archive the approved instants still archivable; the count is what this run archived (an
    approved instant already off the active timeline, e.g. archived by an interrupted apply of
    this plan, is reported as such, not counted again)."""
    table, dropped = open_for_apply(ctx)
    approved = [a.target for a in ctx.node.actions_of(ArchiveInstant)]
    before = {i.timestamp for i in table.snapshot.timeline.instants if i.is_completed}
    fault = functools.partial(maybe_fail, "archive")
    applied = apply_archive_node(table, ctx.spec, ctx.node, fault=fault)
    outcome = applied.outcome
    after = load_timeline(table.storage, table.snapshot.config)  # the timeline only: no listing
    still_active = {i.timestamp for i in after.instants if i.is_completed}
    archived = [t for t in approved if t in before and t not in still_active]
    gone_before = [t for t in approved if t not in before]
    effects = ArchiveApplyEffects(
        archive_file=outcome.archive_file,
        records_written=outcome.records_written,
        instants_archived=tuple(archived),
        already_archived=tuple(gone_before),
        deleted_files=outcome.deleted_files,
    )
    drifted = tuple(
        Drift(t, f"not archived: {applied.refused.get(t, 'no longer archivable')}")
        for t in approved
        if t in before and t not in archived
    )
    message = summary(len(archived), "instant(s) archived", drifted)
    if gone_before:
        message += f"; {len(gone_before)} already archived before this run (off the active timeline)"
    return NodeOutcome(with_dropped(effects, dropped), drifted, message)


@dataclass(frozen=True, slots=True)
class ArchiveApplied:
    """What applying an archive node did, and why each approved instant left on the active
    timeline is not archivable now (the boundary or rule that keeps it)."""

    outcome: ArchiveOutcome
    refused: Mapping[str, str]


def why_kept(current: ArchivePlanResult, timestamp: str) -> str:
    """Why the current plan keeps an instant active: the first boundary at or before it, else
    the count rule (keep_min/keep_max commits)."""
    stops = [b for b in current.boundaries if b.timestamp <= timestamp]
    if stops:
        return f"archival now stops before {stops[0].reason}"
    return f"kept by the current timeline: {current.reasons[0]}" if current.reasons else "kept"


def apply_archive_node(
    table: TableState, spec: TableSpec, node: NodePlan, *, fault: Fault = no_fault
) -> ArchiveApplied:
    """Archive the approved instants that are still archivable; the others are drift."""
    approved = {a.target for a in node.actions_of(ArchiveInstant)}
    current = plan_archive_result(table, spec)
    chosen = tuple(i for i in current.instants if i.timestamp in approved)
    outcome = run_archive(
        table.storage, table.snapshot.config, replace(current, instants=chosen), fault=fault
    )
    taken = {i.timestamp for i in chosen}
    refused = {t: why_kept(current, t) for t in sorted(approved - taken)}
    return ArchiveApplied(outcome, refused)
