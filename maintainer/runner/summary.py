"""What an apply did, for people: each node's effects said as effects (a dropped metadata table
is never "nothing to do"), and Terraform's closing line, e.g.

    Apply complete: 1,204 files deleted (3.1 GiB), 12 file slices compacted, 1 rollback;
    2 approved actions skipped as drift (t.clean: 2).

Counted from the effects each service reports in ``run_results.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from maintainer.units import count, human_bytes

DRIFT_NODES_SHOWN = 3
BLOCKED_NODES_SHOWN = 20
"""Blocked nodes named in the closing line (a nightly run must say which tables it left)."""


def dropped_metadata_table(effects: Mapping[str, Any]) -> str | None:
    """``metadata table dropped (files, record_index)`` when the node dropped it, else None."""
    partitions = effects.get("metadata_table_dropped")
    if partitions is None:
        return None
    return "metadata table dropped" + (f" ({', '.join(partitions)})" if partitions else "")


def told(message: str, effects: Mapping[str, Any]) -> str:
    """The node's message with the effects it must never hide (a dropped metadata table)."""
    dropped = dropped_metadata_table(effects)
    if dropped is None or message.startswith("metadata table dropped"):
        return message
    rest = "" if message in ("", "nothing to do") else f"; {message}"
    return dropped + rest


def _total(nodes: Sequence[NodeResult], key: str, size: Callable[[Any], int] = int) -> int:
    return sum(size(node.effects[key]) for node in nodes if node.effects.get(key))


def effect_parts(nodes: Sequence[NodeResult]) -> list[str]:
    """What the nodes did, in plan order: deletes, compactions, rollbacks, archival, savepoints."""
    files, size = _total(nodes, "files_deleted"), _total(nodes, "bytes_deleted")
    parts = []
    if files:
        parts.append(count(files, "file") + " deleted" + (f" ({human_bytes(size)})" if size else ""))
    counted = (
        ("slices_compacted", int, "file slice", "compacted"),
        ("rollbacks", len, "rollback", ""),
        ("instants_archived", len, "instant", "archived"),
        ("savepoints_created", len, "savepoint", "created"),
        ("savepoints_deleted", len, "savepoint", "deleted"),
    )
    for key, measure, noun, verb in counted:
        total = _total(nodes, key, measure)
        if total:
            parts.append(f"{count(total, noun)} {verb}".rstrip())
    dropped = sum(1 for node in nodes if node.effects.get("metadata_table_dropped") is not None)
    if dropped:
        parts.append(f"{count(dropped, 'metadata table')} dropped")
    return parts


def drift_part(nodes: Sequence[NodeResult]) -> str | None:
    """``2 approved actions skipped as drift (t.clean: 2)``, or None without drift."""
    drifted = [(node.id, len(node.drift)) for node in nodes if node.drift]
    if not drifted:
        return None
    total = sum(n for _, n in drifted)
    shown = ", ".join(f"{node}: {n}" for node, n in drifted[:DRIFT_NODES_SHOWN])
    more = f", {len(drifted) - DRIFT_NODES_SHOWN} more nodes" if len(drifted) > DRIFT_NODES_SHOWN else ""
    return f"{count(total, 'approved action')} skipped as drift ({shown}{more}; reasons above)"


def closing_line(results: RunResults) -> str:
    """Terraform's last line: what was done, what was skipped, what failed."""
    nodes = results.nodes
    failed = [node.id for node in nodes if node.status is NodeRunStatus.ERROR]
    done = effect_parts(nodes)
    head = "Apply failed" if failed else "Apply complete"
    body = ", ".join(done) if done else "no changes made"
    tail = []
    drift = drift_part(nodes)
    if drift is not None:
        tail.append(drift)
    if failed:
        names = ", ".join(failed[:DRIFT_NODES_SHOWN]) + (" ..." if len(failed) > DRIFT_NODES_SHOWN else "")
        tail.append(f"{count(len(failed), 'node')} failed ({names})")
    blocked = [node.id for node in nodes if node.status is NodeRunStatus.BLOCKED]
    if blocked:
        names = ", ".join(blocked[:BLOCKED_NODES_SHOWN])
        more = (
            f" and {len(blocked) - BLOCKED_NODES_SHOWN:,} more" if len(blocked) > BLOCKED_NODES_SHOWN else ""
        )
        tail.append(f"{count(len(blocked), 'node')} blocked, left unmaintained ({names}{more})")
    skipped = sum(1 for node in nodes if node.status is NodeRunStatus.SKIPPED)
    if skipped:
        tail.append(f"{count(skipped, 'node')} skipped")
    return f"{head}: {body}" + ("; " + "; ".join(tail) if tail else "") + "."
