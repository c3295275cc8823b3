"""Rendering a plan for people: plain text for the terminal, markdown for a pull-request
comment, and the stored JSON. Everything is rendered from the same objects apply executes.

Per table and node: what happens (status), how many files and bytes, why (the node's
reasons), what is blocked; then a summary line in the spirit of Terraform's
"Plan: N to add, ...".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from maintainer.catalog import ACTION_LABELS
from maintainer.plan.artifact import PAYLOAD_HASHES_FIELD, sha256_hex
from maintainer.plan.canonical import PLAN_ID_FIELD, pretty_json
from maintainer.plan.model import Action, DeleteFile, NodePlan, NodeStatus, Plan, TablePlan
from maintainer.units import human_bytes

FILES_SHOWN = 10
"""Files listed per node in the text and markdown views (plan.json has them all)."""
PARTITIONS_SHOWN = 20

_ACTION_LABELS = {label.kind: (label.one, label.many) for label in ACTION_LABELS}
"""In summary order (the catalog's)."""


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _action_counts(nodes: Iterable[NodePlan]) -> Counter[str]:
    return Counter(a.kind for n in nodes if n.status is NodeStatus.CHANGES for a in n.actions)


def _bytes_to_delete(nodes: Iterable[NodePlan]) -> int:
    return sum(a.size for n in nodes if n.status is NodeStatus.CHANGES for a in n.actions_of(DeleteFile))


def _describe_counts(counts: Counter[str], deleted_bytes: int) -> list[str]:
    parts = []
    for kind in sorted(
        counts, key=lambda k: (list(_ACTION_LABELS).index(k) if k in _ACTION_LABELS else 99, k)
    ):
        one, many = _ACTION_LABELS.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
        text = _plural(counts[kind], one, many)
        if kind == "delete_file":
            text += f" ({human_bytes(deleted_bytes)})"
        parts.append(text)
    return parts


def summary_line(plan: Plan) -> str:
    """One line: what the plan changes, what is blocked, what has nothing to do."""
    nodes = plan.nodes()
    statuses = Counter(n.status for n in nodes)
    tail = (
        f"{_plural(statuses[NodeStatus.BLOCKED], 'node', 'nodes')} blocked, "
        f"{statuses[NodeStatus.NO_OP]} with nothing to do"
    )
    if not plan.has_changes:
        if statuses[NodeStatus.BLOCKED]:  # never "No changes" while work is held back
            return f"No changes can be made: {tail}. Blocked nodes are not maintained; see why below."
        return f"No changes. {tail}."
    changed_tables = sum(1 for t in plan.tables if any(n.status is NodeStatus.CHANGES for n in t.nodes))
    parts = _describe_counts(_action_counts(nodes), _bytes_to_delete(nodes))
    return f"Plan: {', '.join(parts)} in {_plural(changed_tables, 'table', 'tables')}; {tail}."


def node_headline(node: NodePlan) -> str:
    """What the node does, in a few words."""
    if node.status is NodeStatus.BLOCKED:
        return f"blocked: {node.reasons[0]}" if node.reasons else "blocked"
    if node.status is NodeStatus.NO_OP:
        return "nothing to do"
    parts = _describe_counts(_action_counts([node]), _bytes_to_delete([node]))
    return ", ".join(parts)


def _file_lines(node: NodePlan, limit: int) -> list[str]:
    files = node.actions_of(DeleteFile)
    lines = [f"{a.target} ({human_bytes(a.size)}): {a.reason}" for a in files[:limit]]
    if len(files) > limit:
        lines.append(f"... and {len(files) - limit} more (all listed in plan.json)")
    return lines


def _other_actions(actions: Iterable[Action]) -> list[str]:
    return [f"{a.kind} {a.target}: {a.reason}" for a in actions if not isinstance(a, DeleteFile)]


def _partition_counts(node: NodePlan) -> list[tuple[str, int, int]]:
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for action in node.actions_of(DeleteFile):
        files[action.partition] += 1
        sizes[action.partition] += action.size
    return [(p, files[p], sizes[p]) for p in sorted(files)]


def shared_block_reason(table: TablePlan) -> str | None:
    """The one reason every node of the table is blocked for (an unreadable table, a metadata
    table), else None."""
    reasons = {n.reasons for n in table.nodes}
    blocked = all(n.status is NodeStatus.BLOCKED for n in table.nodes)
    if table.nodes and blocked and len(reasons) == 1 and len(table.nodes) > 1:
        only = next(iter(reasons))
        return "; ".join(only) if only else None
    return None


def _table_title(table: TablePlan) -> str:
    kind = table.table_type if table.version == 0 else f"{table.table_type}, table version {table.version}"
    return f"{table.name} ({kind}) {table.path}"


# -- text ------------------------------------------------------------------------------------


def _text_node(node: NodePlan) -> list[str]:
    lines = [f"  {node.id}: {node_headline(node)}"]
    shown = node.reasons[1:] if node.status is NodeStatus.BLOCKED else node.reasons
    lines += [f"      - {reason}" for reason in shown]
    lines += [f"      * {line}" for line in _other_actions(node.actions)]
    lines += [f"      - delete {line}" for line in _file_lines(node, FILES_SHOWN)]
    return lines


def render_text(plan: Plan, plan_id: str) -> str:
    lines = [f"plan {plan_id[:12]} (project {plan.project}, target {plan.target})", ""]
    for table in plan.tables:
        lines.append(_table_title(table))
        shared = shared_block_reason(table)
        if shared is not None:
            lines.append(f"  every node blocked ({', '.join(n.service for n in table.nodes)}): {shared}")
        else:
            for node in table.nodes:
                lines += _text_node(node)
        lines.append("")
    lines.append(summary_line(plan))
    return "\n".join(lines) + "\n"


# -- markdown --------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Escape what would break a markdown table cell or render as markup."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def _md_status(node: NodePlan) -> str:
    return {NodeStatus.CHANGES: "changes", NodeStatus.NO_OP: "no-op", NodeStatus.BLOCKED: "**blocked**"}[
        node.status
    ]


def _md_node_details(node: NodePlan) -> list[str]:
    lines = [f"#### `{node.id}`: {_md(node_headline(node))}", ""]
    lines += [f"- {_md(reason)}" for reason in node.reasons]
    lines += [
        f"- `{_md(a.kind)}` `{_md(a.target)}`: {_md(a.reason)}"
        for a in node.actions
        if not isinstance(a, DeleteFile)
    ]
    partitions = _partition_counts(node)
    if partitions:
        lines += ["", "| partition | files | bytes |", "|---|---:|---:|"]
        lines += [
            f"| `{_md(p) or '(table root)'}` | {n} | {human_bytes(b)} |"
            for p, n, b in partitions[:PARTITIONS_SHOWN]
        ]
        if len(partitions) > PARTITIONS_SHOWN:
            lines.append(f"| ... {len(partitions) - PARTITIONS_SHOWN} more partitions | | |")
        files = _file_lines(node, FILES_SHOWN)
        lines += ["", "<details><summary>files to delete</summary>", "", *[f"- `{_md(f)}`" for f in files]]
        lines += ["", "</details>"]
    return [*lines, ""]


def _md_table(table: TablePlan) -> list[str]:
    lines = [
        f"### {_md(table.name)}",
        "",
        f"`{_md(table.path)}` · {table.table_type} · table version {table.version}",
        "",
    ]
    lines += ["| node | status | what happens |", "|---|---|---|"]
    lines += [f"| `{n.id}` | {_md_status(n)} | {_md(node_headline(n))} |" for n in table.nodes]
    lines.append("")
    shared = shared_block_reason(table)
    if shared is not None:
        return [*lines, f"Every node is **blocked**: {_md(shared)}", ""]
    for node in table.nodes:
        lines += _md_node_details(node)
    return lines


def render_markdown(plan: Plan, plan_id: str) -> str:
    lines = [
        f"## maintainer plan `{plan_id[:12]}`",
        "",
        f"**{_md(summary_line(plan))}**",
        "",
        f"Project `{_md(plan.project)}`, target `{_md(plan.target)}`; plan id `{plan_id}`.",
        "",
    ]
    for table in plan.tables:
        lines += _md_table(table)
    return "\n".join(lines).rstrip("\n") + "\n"


# -- json ------------------------------------------------------------------------------------


def render_json(plan: Plan, plan_id: str, payloads: Mapping[str, bytes]) -> str:
    """The plan as stored in plan.json (body, plan id, payload hashes)."""
    hashes = {name: sha256_hex(data) for name, data in sorted(payloads.items())}
    return pretty_json({**plan.body(), PLAN_ID_FIELD: plan_id, PAYLOAD_HASHES_FIELD: hashes})


def render(plan: Plan, plan_id: str, payloads: Mapping[str, bytes], output_format: str) -> str:
    if output_format == "markdown":
        return render_markdown(plan, plan_id)
    if output_format == "json":
        return render_json(plan, plan_id, payloads)
    return render_text(plan, plan_id)
