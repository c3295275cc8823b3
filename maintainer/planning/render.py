"""Rendering a plan for people: plain text for the terminal, markdown for a pull-request
comment (:mod:`maintainer.planning.markdown`), and the stored JSON. Everything is rendered from
the same objects apply executes, plus the review context (provenance, manifest changes) kept
beside the plan.

Text is plain (no markup, no HTML escapes); sizes are in one unit family (KiB, MiB, GiB). A value
read from a table or a manifest stays on its line: its newlines and other control characters
(terminal escape sequences) are shown as escapes (``\\n``, ``\\x1b``).
"""

from __future__ import annotations

from collections.abc import Mapping

from maintainer.console import printable
from maintainer.plan.artifact import PAYLOAD_HASHES_FIELD, sha256_hex
from maintainer.plan.canonical import PLAN_ID_FIELD, pretty_json
from maintainer.plan.model import NodePlan, NodeStatus, Plan, TablePlan
from maintainer.planning.changes import ChangeKind, SpecChange
from maintainer.planning.describe import (
    file_lines,
    node_headline,
    other_actions,
    shared_block_reason,
    summary_line,
    table_title,
)
from maintainer.planning.markdown import render_markdown
from maintainer.planning.review import Provenance, ReviewContext
from maintainer.planning.risks import high_risks, node_risks

FILES_SHOWN = 10
"""Files listed per node in the text view (plan.json has them all)."""
IDLE_TABLES_LISTED = 20
"""Tables with nothing to do get a line each up to this many, then one line for all."""
CHANGES_SHOWN = 50

__all__ = ["render", "render_json", "render_markdown", "render_text", "summary_line"]


def _text_node(node: NodePlan) -> list[str]:
    risks = node_risks(node)
    flags = f" [risk: {'; '.join(r.marked for r in risks)}]" if risks else ""
    lines = [f"  {node.id}: {node_headline(node)}{flags}"]
    shown = node.reasons[1:] if node.status is NodeStatus.BLOCKED else node.reasons
    lines += [f"      - {reason}" for reason in shown]
    lines += [f"      * {line}" for line in other_actions(node.actions)]
    lines += [f"      - delete {line}" for line in file_lines(node, FILES_SHOWN)]
    return lines


def _idle(table: TablePlan) -> bool:
    return all(node.status is NodeStatus.NO_OP for node in table.nodes)


def _text_table(table: TablePlan) -> list[str]:
    lines = [table_title(table)]
    shared = shared_block_reason(table)
    if shared is not None:
        lines.append(f"  every node blocked ({', '.join(n.service for n in table.nodes)}): {shared}")
    else:
        for node in table.nodes:
            lines += _text_node(node)
    return [*lines, ""]


def _text_idle(tables: list[TablePlan]) -> list[str]:
    if not tables:
        return []
    if len(tables) <= IDLE_TABLES_LISTED:
        return [f"{t.name}: nothing to do ({', '.join(n.service for n in t.nodes)})" for t in tables] + [""]
    names = ", ".join(t.name for t in tables[:IDLE_TABLES_LISTED])
    return [
        f"{len(tables):,} tables with nothing to do: {names} and {len(tables) - IDLE_TABLES_LISTED:,} more",
        "",
    ]


def provenance_line(provenance: Provenance) -> str:
    commit = provenance.commit()
    made = f"made {provenance.made_at} by maintainer {provenance.maintainer_version}"
    return made + (f" from commit {commit}" if commit else "") + f"; selection: {provenance.selection()}"


def change_line(change: SpecChange) -> str:
    if change.option == "(table)":
        return f"{change.kind.value:<13} {change.table}: {change.why}"
    return (
        f"{change.kind.value:<13} {change.table} {change.option}: {_value(change.before)} -> "
        f"{_value(change.after)} ({change.why})"
    )


def _value(value: object) -> str:
    return "(unset)" if value is None else str(value)


def _text_changes(review: ReviewContext) -> list[str]:
    if review.baseline is None:
        return []
    if not review.changes:
        return [f"No manifest changes since {review.baseline}.", ""]
    order = {ChangeKind.DESTRUCTIVE: 0, ChangeKind.REWRITE: 1, ChangeKind.METADATA: 2}
    changes = sorted(review.changes, key=lambda c: (order[c.kind], c.table, c.option))
    lines = [f"Manifest changes since {review.baseline}:"]
    lines += [f"  {change_line(c)}" for c in changes[:CHANGES_SHOWN]]
    if len(changes) > CHANGES_SHOWN:
        lines.append(f"  ... and {len(changes) - CHANGES_SHOWN:,} more (plan_meta.json has them all)")
    return [*lines, ""]


def render_text(plan: Plan, plan_id: str, review: ReviewContext | None = None) -> str:
    review = review or ReviewContext()
    lines = [f"plan {plan_id[:12]} (project {plan.project}, target {plan.target})"]
    if review.provenance is not None:
        lines.append(provenance_line(review.provenance))
    lines.append("")
    lines += _text_changes(review)
    idle = [t for t in plan.tables if _idle(t)]
    for table in plan.tables:
        if not _idle(table):
            lines += _text_table(table)
    lines += _text_idle(idle)
    risks = high_risks(plan.nodes())
    lines += [f"risk: {r.node} {r.marked}: {r.detail}" for r in risks] + ([""] if risks else [])
    lines.append(summary_line(plan, why="see why above"))
    return "".join(printable(line).replace("\n", "\\n") + "\n" for line in lines)


# -- json ------------------------------------------------------------------------------------


def render_json(plan: Plan, plan_id: str, payloads: Mapping[str, bytes]) -> str:
    """The plan as stored in plan.json (body, plan id, payload hashes)."""
    hashes = {name: sha256_hex(data) for name, data in sorted(payloads.items())}
    return pretty_json({**plan.body(), PLAN_ID_FIELD: plan_id, PAYLOAD_HASHES_FIELD: hashes})


def render(
    plan: Plan,
    plan_id: str,
    payloads: Mapping[str, bytes],
    output_format: str,
    review: ReviewContext | None = None,
) -> str:
    if output_format == "markdown":
        return render_markdown(plan, plan_id, review)
    if output_format == "json":
        return render_json(plan, plan_id, payloads)
    return render_text(plan, plan_id, review)
