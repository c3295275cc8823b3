"""Rendering a plan for people: plain text for the terminal, markdown for a pull-request
comment (:mod:`maintainer.planning.markdown`), and the stored JSON. Everything is rendered from
the same objects apply executes, plus the review context (provenance, manifest changes) kept
beside the plan.

Text is plain (no markup, no HTML escapes); sizes are in one unit family (KiB, MiB, GiB). A value
read from a table or a manifest stays on its line: its newlines and other control characters
(terminal escape sequences) are shown as escapes (``\\n``, ``\\x1b``).

The text view summarises a large plan (it is a CI log line by line): the first
:data:`TABLES_DETAILED` tables with changes or blocked nodes in full with their first
:data:`FILES_SHOWN` files, the others on one line each, the manifest changes grouped by source
line; ``--verbose`` prints every table, every file and every table name of a change.
"""

from __future__ import annotations

from collections.abc import Mapping

from maintainer.artifact.canonical import PLAN_ID_FIELD, pretty_json
from maintainer.artifact.directory import PAYLOAD_HASHES_FIELD, sha256_hex
from maintainer.artifact.model import DeleteFile, NodePlan, NodeStatus, Plan, TablePlan
from maintainer.console import printable
from maintainer.planning.changes import ChangeGroup, table_range
from maintainer.planning.describe import (
    file_lines,
    node_headline,
    other_actions,
    shared_block_reason,
    summary_line,
    table_title,
)
from maintainer.planning.markdown import render_markdown
from maintainer.planning.review_context import Provenance, ReviewContext
from maintainer.planning.risks import high_risks, node_risks

FILES_SHOWN = 3
"""Files listed per node in the text view without --verbose (plan.json has them all)."""
ACTIONS_SHOWN = 10
"""Other actions (not file deletes) listed per node without --verbose."""
TABLES_DETAILED = 20
"""Tables with changes or blocked nodes shown in full without --verbose; the rest one line each."""
IDLE_TABLES_LISTED = 20
"""Tables with nothing to do get a line each up to this many, then one line for all."""
GROUPS_SHOWN = 50
"""Manifest change groups listed without --verbose (plan_meta.json has every change)."""
RISKS_SHOWN = 20

__all__ = ["render", "render_json", "render_markdown", "render_text", "summary_line"]


def _flags(node: NodePlan) -> str:
    risks = node_risks(node)
    return f" [risk: {'; '.join(r.marked for r in risks)}]" if risks else ""


def _text_node(node: NodePlan, verbose: bool) -> list[str]:
    lines = [f"  {node.id}: {node_headline(node)}{_flags(node)}"]
    shown = node.reasons[1:] if node.status is NodeStatus.BLOCKED else node.reasons
    lines += [f"      - {reason}" for reason in shown]
    actions = other_actions(node.actions)
    limit = len(actions) if verbose else ACTIONS_SHOWN
    lines += [f"      * {line}" for line in actions[:limit]]
    if len(actions) > limit:
        lines.append(
            f"      * ... and {len(actions) - limit:,} more (--verbose lists them, plan.json has them)"
        )
    files = len(node.actions_of(DeleteFile))
    lines += [f"      - delete {line}" for line in file_lines(node, files if verbose else FILES_SHOWN)]
    return lines


def _idle(table: TablePlan) -> bool:
    return all(node.status is NodeStatus.NO_OP for node in table.nodes)


def _text_table(table: TablePlan, verbose: bool) -> list[str]:
    lines = [table_title(table)]
    shared = shared_block_reason(table)
    if shared is not None:
        lines.append(f"  every node blocked ({', '.join(n.service for n in table.nodes)}): {shared}")
    else:
        for node in table.nodes:
            lines += _text_node(node, verbose)
    return [*lines, ""]


def _table_line(table: TablePlan) -> str:
    """A table in one line: what each node that is not idle does."""
    shared = shared_block_reason(table)
    if shared is not None:
        return f"  {table.name}: every node blocked: {shared}"
    busy = [n for n in table.nodes if n.status is not NodeStatus.NO_OP]
    return f"  {table.name}: " + "; ".join(f"{n.service} {node_headline(n)}{_flags(n)}" for n in busy)


def _text_tables(tables: list[TablePlan], verbose: bool) -> list[str]:
    detailed = tables if verbose else tables[:TABLES_DETAILED]
    lines = [line for table in detailed for line in _text_table(table, verbose)]
    rest = tables[len(detailed) :]
    if rest:
        lines.append(
            f"{len(rest):,} more tables with changes or blocked nodes, one line each "
            "(--verbose shows them in full, plan.json has everything):"
        )
        lines += [_table_line(table) for table in rest]
        lines.append("")
    return lines


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


def group_line(group: ChangeGroup, verbose: bool = False) -> str:
    """``destructive   tables/cow/_defaults.yml:2 clean.commits_retained: 4 -> 3: 200 tables
    (cow_000 … cow_199) (less retention (commits))``."""
    where = f"{group.source} " if group.source else ""
    count = f"{len(group.tables):,} {'table' if len(group.tables) == 1 else 'tables'}"
    names = ", ".join(group.tables) if verbose else table_range(group.tables)
    if group.option == "(table)":
        return f"{group.kind.value:<13} {where}{count} ({names}): {group.why}"
    return (
        f"{group.kind.value:<13} {where}{group.option}: {_value(group.before)} -> "
        f"{_value(group.after)}: {count} ({names}) ({group.why})"
    )


def _value(value: object) -> str:
    return "(unset)" if value is None else str(value)


def _text_changes(review: ReviewContext, verbose: bool) -> list[str]:
    if review.baseline is None:
        return []
    if not review.changes:
        return [f"No manifest changes since {review.baseline}.", ""]
    groups = review.groups()
    maintenance = review.maintenance_line() or "maintenance is the same"
    lines = [f"Manifest changes since {review.baseline} ({maintenance}):"]
    shown = groups if verbose else groups[:GROUPS_SHOWN]
    lines += [f"  {group_line(g, verbose)}" for g in shown]
    if len(groups) > len(shown):
        rest = groups[len(shown) :]
        tables = sum(len(g.tables) for g in rest)
        lines.append(
            f"  ... and {len(rest):,} more changes in {tables:,} table(s) "
            "(--verbose lists them, plan_meta.json has them all)"
        )
    return [*lines, ""]


def _text_risks(plan: Plan, verbose: bool) -> list[str]:
    risks = high_risks(plan.nodes())
    shown = risks if verbose else risks[:RISKS_SHOWN]
    lines = [f"risk: {r.node} {r.marked}: {r.detail}" for r in shown]
    if len(risks) > len(shown):
        lines.append(f"risk: ... and {len(risks) - len(shown):,} more high risks (--verbose lists them)")
    return [*lines, ""] if lines else []


def render_text(
    plan: Plan, plan_id: str, review: ReviewContext | None = None, *, verbose: bool = False
) -> str:
    review = review or ReviewContext()
    lines = [f"plan {plan_id[:12]} (project {plan.project}, target {plan.target})"]
    if review.provenance is not None:
        lines.append(provenance_line(review.provenance))
    lines.append("")
    lines += _text_changes(review, verbose)
    lines += _text_tables([t for t in plan.tables if not _idle(t)], verbose)
    lines += _text_idle([t for t in plan.tables if _idle(t)])
    lines += _text_risks(plan, verbose)
    lines.append(summary_line(plan, why="see why above", maintenance=review.maintenance_line()))
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
    *,
    verbose: bool = False,
) -> str:
    if output_format == "markdown":
        return render_markdown(plan, plan_id, review)
    if output_format == "json":
        return render_json(plan, plan_id, payloads)
    return render_text(plan, plan_id, review, verbose=verbose)
