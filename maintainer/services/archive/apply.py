"""Apply an approved archive node: archive the approved instants still archivable."""

from __future__ import annotations

import functools
from typing import Any

from maintainer.hudi.table import load_timeline
from maintainer.plan.model import ArchiveInstant
from maintainer.services.archive.node import apply_archive_node
from maintainer.services.base import Drift, NodeContext, NodeOutcome, maybe_fail
from maintainer.services.common.metadata_table import open_for_apply
from maintainer.services.common.outcome import summary


def execute_archive(ctx: NodeContext) -> NodeOutcome:
    """Archive the approved instants still archivable; the count is what this run archived (an
    approved instant already off the active timeline, e.g. archived by an interrupted apply of
    this plan, is reported as such, not counted again)."""
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    approved = [a.target for a in ctx.node.actions_of(ArchiveInstant)]
    before = {i.timestamp for i in table.snapshot.timeline.instants if i.is_completed}
    fault = functools.partial(maybe_fail, "archive")
    applied = apply_archive_node(table, ctx.spec, ctx.node, fault=fault)
    outcome = applied.outcome
    after = load_timeline(table.storage, table.snapshot.config)  # the timeline only: no listing
    still_active = {i.timestamp for i in after.instants if i.is_completed}
    archived = [t for t in approved if t in before and t not in still_active]
    gone_before = [t for t in approved if t not in before]
    effects.update(
        archive_file=outcome.archive_file,
        records_written=outcome.records_written,
        instants_archived=archived,
        already_archived=gone_before,
        deleted_files=list(outcome.deleted_files),
    )
    drifted = tuple(
        Drift(t, f"not archived: {applied.refused.get(t, 'no longer archivable')}")
        for t in approved
        if t in before and t not in archived
    )
    message = summary(len(archived), "instant(s) archived", drifted)
    if gone_before:
        message += f"; {len(gone_before)} already archived before this run (off the active timeline)"
    return NodeOutcome(effects, drifted, message)
