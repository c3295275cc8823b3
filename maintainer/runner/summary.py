"""What an apply did, for people: each node's effects said as effects (a dropped metadata table
is never "nothing to do"), and Terraform's closing line, e.g.

    Apply complete: 1,204 files deleted (3.1 GiB), 12 file slices compacted,
    1 rollback (8 files deleted, 12.0 KiB); 2 approved actions skipped as drift (t.clean: 2).

Counted from the effects each service reports in ``run_results.json``, as the plan's summary
line counts them: the files rollbacks delete go with the rollbacks. Each service declares its
parts of the line (``ServiceDeclaration.summary``); the dropped metadata tables are any node's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from maintainer.catalog import NodeEffects, installed
from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults
from maintainer.units import count

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


def effect_parts(nodes: Sequence[NodeResult]) -> list[str]:
    """What the nodes did, in the order of the parts the services declare (deletes,
    compactions, rollbacks with the files they deleted, the metadata table's upkeep, archival,
    savepoints), then the metadata tables dropped."""
    effects = [NodeEffects(node.id.rpartition(".")[2], node.effects) for node in nodes]
    done = [told for part in installed().summary if (told := part.tell(effects))]
    dropped = sum(1 for node in nodes if node.effects.get("metadata_table_dropped") is not None)
    if dropped:
        done.append(f"{count(dropped, 'metadata table')} dropped")
    return done


def drift_part(nodes: Sequence[NodeResult]) -> str | None:
    """``2 approved actions skipped as drift (t.clean: 2)``, or None without drift."""
    drifted = [(node.id, len(node.drift)) for node in nodes if node.drift]
    if not drifted:
        return None
    total = sum(n for _, n in drifted)
    shown = ", ".join(f"{node}: {n}" for node, n in drifted[:DRIFT_NODES_SHOWN])
    more = f", {len(drifted) - DRIFT_NODES_SHOWN} more nodes" if len(drifted) > DRIFT_NODES_SHOWN else ""
    return f"{count(total, 'approved action')} skipped as drift ({shown}{more}; reasons above)"


def _first(names: Sequence[str]) -> str:
    """The first few names, ``...`` for the rest."""
    return ", ".join(names[:DRIFT_NODES_SHOWN]) + (" ..." if len(names) > DRIFT_NODES_SHOWN else "")


def closing_line(results: RunResults, resume: str = "maintainer apply") -> str:
    """Terraform's last line: what was done, what was skipped, what failed; after an interrupt,
    what was cancelled and how to resume (``resume``: the command that applies the plan again)."""
    nodes = results.nodes
    failed = [node.id for node in nodes if node.status is NodeRunStatus.ERROR]
    cancelled = results.cancelled
    done = effect_parts(nodes)
    head = "Apply failed" if failed else "Apply interrupted" if cancelled else "Apply complete"
    body = ", ".join(done) if done else "no changes made"
    tail = []
    drift = drift_part(nodes)
    if drift is not None:
        tail.append(drift)
    if failed:
        tail.append(f"{count(len(failed), 'node')} failed ({_first(failed)})")
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
    if cancelled:
        tail.append(f"{count(len(cancelled), 'node')} cancelled ({_first(cancelled)})")
    line = f"{head}: {body}" + ("; " + "; ".join(tail) if tail else "") + "."
    if cancelled:
        line += f" Run `{resume}` again to resume: done nodes are skipped."
    return line
