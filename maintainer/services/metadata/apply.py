"""Apply an approved metadata node: each approved part (clean, compaction, archival) is derived
again from the metadata table as it is now and done only when it is still due."""

from __future__ import annotations

import functools
from typing import Any

from maintainer.hudi.loading import read_table_state
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.plan.model import CompactMetadataTable
from maintainer.services.base import Drift, NodeContext, NodeOutcome, maybe_fail
from maintainer.services.metadata.compaction import decide_compaction, run_compaction
from maintainer.services.metadata.node import SERVICE, settings_of


def execute_metadata(ctx: NodeContext) -> NodeOutcome:
    storage = ctx.storage()
    data = read_table_state(storage, partitions=(), verify=False)
    mdt = open_metadata_table(data)
    if mdt is None:
        gone = tuple(Drift(a.target, "the table has no metadata table any more") for a in ctx.node.actions)
        return NodeOutcome({}, gone, "nothing done: the table has no metadata table any more")
    settings = settings_of(ctx.spec)
    fault = functools.partial(maybe_fail, SERVICE)
    effects: dict[str, Any] = {}
    drift: list[Drift] = []
    done: list[str] = []
    for approved in ctx.node.actions_of(CompactMetadataTable):
        decision = decide_compaction(
            mdt, data.snapshot.timeline, ctx.clock(), settings.compact_max_delta_commits
        )
        compacted = run_compaction(mdt, decision, ctx.clock, fault)
        if compacted is None:
            drift.append(Drift(approved.target, f"metadata table not compacted: {decision.reason}"))
            continue
        effects["metadata_compaction"] = compacted.instant.timestamp
        effects["metadata_compactions"] = 1
        effects["metadata_file_groups_compacted"] = compacted.file_groups
        done.append(
            f"metadata table compacted at {compacted.instant.timestamp} ({compacted.file_groups} file groups)"
        )
    message = "; ".join(done) if done else "nothing done"
    if drift:
        message += f"; {len(drift)} approved action(s) skipped as drift"
    return NodeOutcome(effects, tuple(drift), message)
