"""The plan as a pull-request comment (plan.md): it fits GitHub's 65,536-character limit for a
lake of any size, most important first:

1. the summary line, and where the plan comes from (when, commit, version, selection, target);
2. high risks (a metadata table dropped, savepoints deleted);
3. what changed in the manifests since the last applied plan, grouped by the source line that
   made the change (``_defaults.yml:2`` ``clean.commits_retained`` 4 → 3: 200 tables), by kind;
4. one row per table with changes (capped; the rest summed), blocked nodes grouped by reason,
   tables with nothing to do on one line;
5. per-table details in ``<details>``, partitions and files capped, while room is left; the
   whole list is in plan.json.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable

from maintainer.artifact.model import CompactionEffect, DeleteFile, NodePlan, NodeStatus, Plan, TablePlan
from maintainer.catalog import ChangeKind
from maintainer.console import printable
from maintainer.planning.changes import KIND_ORDER, TABLES_NAMED, ChangeGroup
from maintainer.planning.describe import (
    TableFigures,
    node_headline,
    other_actions,
    partition_counts,
    plural,
    shared_block_reason,
    summary_line,
    table_figures,
)
from maintainer.planning.review_context import Provenance, ReviewContext
from maintainer.planning.risks import RiskLevel, high_risks, node_risks
from maintainer.units import human_bytes

COMMENT_LIMIT = 65_536
"""GitHub's limit for a comment body."""
BUDGET = 58_000
"""What plan.md may take, leaving room for the text a workflow puts around it."""
TABLE_ROWS = 100
RISKS_SHOWN = 10
GROUPS_SHOWN = 60
"""Manifest change groups shown (each one source line, option and before -> after)."""
BLOCKED_REASONS_SHOWN = 20
NAMES_SHOWN = 10
IDLE_NAMES_SHOWN = 50
PARTITIONS_SHOWN = 20
FILES_SHOWN = 10
ACTIONS_SHOWN = 10
DEFERRED_SHOWN = 20
REASON_CHARS = 400


_PUNCTUATION = re.compile(r"([\\`*\[\]<>#|~&$]|(?<![^\W_])_|_(?![^\W_]))")
_LEADING_MARKER = re.compile(r"^([-+]|\d{1,9}[.)])(?= |$)")
_BREAKS = re.compile(r"(?i)(@|#(?=\d)|:(?=//)|(?<=www)\.)")
_BLANKS = re.compile(r"[\r\n\t\v\f\x85\u2028\u2029]+")
_BACKTICKS = re.compile(r"`+")
ZWSP = "\u200b"
"""A zero-width space: put after ``@``, before the ``.`` of ``www.``, after the ``:`` of ``://``
and after a ``#`` before a digit, it breaks what GitHub would turn into a mention, a link or an
issue reference, and shows nothing."""


def _one_line(value: str) -> str:
    """``value`` on one line, its other control characters visible escapes (``\\x1b``)."""
    return printable(_BLANKS.sub(" ", value))


def _break_links(value: str) -> str:
    return _BREAKS.sub(lambda m: m.group(1) + ZWSP if m.group(1) != "." else ZWSP + ".", value)


def md(value: str) -> str:
    """``value`` as plain text in plan.md, wherever it comes from (a table's partition or file
    name, a manifest, a reason), safe in a table cell and in a list item: on one line, with
    each character that could start Markdown (``\\ ` * [ ] < > # | ~ & $``, and ``_`` but
    between two letters or digits) backslash-escaped, and a leading list marker too, so it can be
    neither emphasis, a link, an image, HTML, a cell break nor a new block (``(``, ``)`` and
    ``!`` mean nothing without ``[``, and stay readable); mentions, bare links and issue
    references broken with a zero-width space (:data:`ZWSP`), since GitHub finds those in
    the rendered text, where backslashes no longer are."""
    text = _PUNCTUATION.sub(r"\\\1", _one_line(value).strip())
    text = _LEADING_MARKER.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], text)
    return _break_links(text)


def code(value: str, *, cell: bool = False) -> str:
    """``value`` as an inline code span shown exactly (on one line): fenced with one backtick
    more than its longest run of backticks, padded with a space on each side when it starts or
    ends with a backtick (or with spaces, which CommonMark would strip). In a table (``cell``),
    pipes are escaped: GitHub splits cells before it reads code spans. An empty value is
    ``(empty)``, not code."""
    text = _one_line(value)
    if not text:
        return "(empty)"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip(" ")):
        text = f" {text} "
    if cell:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def html_text(value: str) -> str:
    """``value`` inside raw HTML (the ``<summary>`` of a table's details, where Markdown is not
    read): one line, HTML-escaped, mentions and links broken as in :func:`md`."""
    return _break_links(html.escape(_one_line(value), quote=True))


def _short(text: str, limit: int = REASON_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code_list(names: Iterable[str], total: int, limit: int) -> str:
    shown = [code(name) for name in list(names)[:limit]]
    return ", ".join(shown) + (f" and {total - limit:,} more" if total > limit else "")


# -- head ------------------------------------------------------------------------------------


def _provenance(plan: Plan, plan_id: str, provenance: Provenance | None) -> list[str]:
    rows = [("project / target", f"{code(plan.project, cell=True)} / {code(plan.target, cell=True)}")]
    if provenance is not None:
        rows.append(("made", f"{md(provenance.made_at)} by maintainer {md(provenance.maintainer_version)}"))
        commit = provenance.commit()
        rows.append(("from commit", code(commit, cell=True) if commit else "not a git checkout"))
        selection = md(provenance.selection())
        rows.append(("selection", f"**partial**: {selection}" if provenance.partial else selection))
    rows.append(("plan id", code(plan_id, cell=True)))
    return ["| | |", "|---|---|", *[f"| {name} | {value} |" for name, value in rows], ""]


def _risks(plan: Plan) -> list[str]:
    risks = high_risks(plan.nodes())
    if not risks:
        return []
    lines = ["> [!CAUTION]", f"> **{plural(len(risks), 'high-risk change', 'high-risk changes')}**:"]
    lines += [f"> - {code(r.node)} {md(r.marked)}: {md(r.detail)}" for r in risks[:RISKS_SHOWN]]
    if len(risks) > RISKS_SHOWN:
        lines.append(f"> - ... and {len(risks) - RISKS_SHOWN:,} more (see the table below)")
    return [*lines, ""]


def _group_row(group: ChangeGroup) -> str:
    kind = f"**{group.kind.value}**" if group.kind is ChangeKind.DESTRUCTIVE else group.kind.value
    where = code(group.source, cell=True) if group.source else "(not known)"
    if group.option == "(table)":
        what = md(group.why)
    else:
        before, after = md(_short(str(group.before), 80)), md(_short(str(group.after), 80))
        what = f"{code(group.option, cell=True)}: {before} → {after}"
    why = md(group.why) if group.option != "(table)" else ""  # a table's why is its change
    count = plural(len(group.tables), "table", "tables")
    names = group.tables
    shown = names if len(names) <= TABLES_NAMED else (names[0], names[-1])
    tables = (", " if len(names) <= TABLES_NAMED else " … ").join(code(n, cell=True) for n in shown)
    return f"| {where} | {what} | {count} ({tables}) | {f'{kind}: {why}' if why else kind} |"


def _changes(review: ReviewContext) -> list[str]:
    """The manifest changes grouped by the source line that made them: every group (groups
    are few even when tables are many), up to GROUPS_SHOWN for a pathological project."""
    if review.baseline is None:
        return []
    title = f"### What changed in the manifests since {md(review.baseline)}"
    if not review.changes:
        return [title, "", "Nothing: the same manifests as then.", ""]
    counts = {kind: sum(1 for c in review.changes if c.kind is kind) for kind in KIND_ORDER}
    line = ", ".join(f"{n:,} {kind.value}" for kind, n in counts.items() if n)
    maintenance = review.maintenance_line()
    line = f"{line} ({maintenance})" if maintenance else f"{line} (maintenance is the same)"
    groups = review.groups()
    lines = [title, "", md(line), "", "| where | change | tables | kind |", "|---|---|---|---|"]
    lines += [_group_row(g) for g in groups[:GROUPS_SHOWN]]
    if len(groups) > GROUPS_SHOWN:
        rest = groups[GROUPS_SHOWN:]
        tables = sum(len(g.tables) for g in rest)
        lines.append(
            f"| ... | {len(rest):,} more changes, in {plural(tables, 'table', 'tables')} "
            "(plan_meta.json has them all) | | |"
        )
    return [*lines, ""]


# -- tables ----------------------------------------------------------------------------------


def _order(figures: TableFigures) -> tuple[bool, int, int, str]:
    """High risks first, then the most bytes deleted, then the most compacted."""
    return (not figures.high_risk, -figures.bytes_deleted, -figures.bytes_compacted, figures.table.name)


def _deletes(f: TableFigures) -> str:
    return f"{f.files_deleted:,} ({human_bytes(f.bytes_deleted)})" if f.files_deleted else ""


def _compacts(f: TableFigures) -> str:
    return f"{f.slices:,} slices ({human_bytes(f.bytes_compacted)})" if f.slices else ""


def _high_risks(f: TableFigures) -> str:
    return "; ".join(md(r.marked) for r in f.risks if r.level is RiskLevel.HIGH)


def _row(f: TableFigures, with_risk: bool) -> str:
    blocked = f" · {len(f.blocked)} blocked" if f.blocked else ""
    other = md(", ".join(f.other)) + blocked
    risk = f" {_high_risks(f)} |" if with_risk else ""
    return f"| {code(f.table.name, cell=True)} | {_deletes(f)} | {_compacts(f)} | {other} |{risk}"


def _changed_tables(changed: list[TableFigures]) -> list[str]:
    """One row per table with changes; the risk column only when a row has a high risk."""
    if not changed:
        return []
    shown = changed[:TABLE_ROWS]
    with_risk = any(_high_risks(f) for f in shown)
    lines = [
        f"### Tables with changes ({len(changed):,})",
        "",
        "| table | files deleted | compaction | other |" + (" risk |" if with_risk else ""),
        "|---|---:|---:|---|" + ("---|" if with_risk else ""),
    ]
    lines += [_row(f, with_risk) for f in shown]
    rest = changed[TABLE_ROWS:]
    if rest:
        files, size = sum(f.files_deleted for f in rest), sum(f.bytes_deleted for f in rest)
        slices = sum(f.slices for f in rest)
        lines.append(
            f"| ... {len(rest):,} more tables | {files:,} ({human_bytes(size)}) | {slices:,} slices | "
            "all in plan.json |" + (" |" if with_risk else "")
        )
    return [*lines, ""]


def _blocked(plan: Plan) -> list[str]:
    by_reason: dict[str, list[str]] = defaultdict(list)
    for table in plan.tables:
        shared = shared_block_reason(table)
        if shared is not None:
            by_reason[shared].append(f"{table.name} (every node)")
            continue
        for node in table.nodes:
            if node.status is NodeStatus.BLOCKED:
                by_reason["; ".join(node.reasons) or "blocked"].append(node.id)
    if not by_reason:
        return []
    total = sum(len(nodes) for nodes in by_reason.values())
    lines = [f"### Blocked ({total:,}): not maintained until fixed", ""]
    ranked = sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    for reason, nodes in ranked[:BLOCKED_REASONS_SHOWN]:
        lines.append(f"- {_code_list(nodes, len(nodes), NAMES_SHOWN)}: {md(_short(reason))}")
    if len(ranked) > BLOCKED_REASONS_SHOWN:
        more = sum(len(nodes) for _, nodes in ranked[BLOCKED_REASONS_SHOWN:])
        lines.append(
            f"- ... {more:,} more blocked, for {len(ranked) - BLOCKED_REASONS_SHOWN:,} other reasons"
        )
    return [*lines, ""]


def _deferred(plan: Plan) -> list[str]:
    """The file slices the fleet's compaction budget left for a later plan, best value first."""
    rows = [
        (node.table, slice_)
        for node in plan.nodes()
        if isinstance(node.effect, CompactionEffect)
        for slice_ in node.effect.deferred
    ]
    if not rows:
        return []
    rows.sort(key=lambda row: (-row[1].value, row[1].input_bytes, row[0], row[1].target))
    total = sum(s.input_bytes for _, s in rows)
    lines = [
        f"### Deferred by the compaction budget ({len(rows):,} file slices, {human_bytes(total)} to read)",
        "",
        "Worth less per byte read than the slices taken; the table's next compaction takes them "
        "(when its trigger fires again). Value: log bytes removed from every read per byte read.",
        "",
        "| table | file slice | reads | log bytes | value |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [
        f"| {code(table, cell=True)} | {code(s.target, cell=True)} | {human_bytes(s.input_bytes)} | "
        f"{human_bytes(s.log_bytes)} | {s.value:.3f} |"
        for table, s in rows[:DEFERRED_SHOWN]
    ]
    if len(rows) > DEFERRED_SHOWN:
        lines.append(f"\nFirst {DEFERRED_SHOWN} of {len(rows):,} (all in plan.json).")
    return [*lines, ""]


def _idle(idle: list[TableFigures]) -> list[str]:
    if not idle:
        return []
    names = _code_list((f.table.name for f in idle), len(idle), IDLE_NAMES_SHOWN)
    return [f"**Nothing to do** in {plural(len(idle), 'table', 'tables')}: {names}.", ""]


# -- details ---------------------------------------------------------------------------------


def _partitions(node: NodePlan) -> list[str]:
    partitions = partition_counts(node)
    if not partitions:
        return []
    lines = ["", "| partition | files | bytes |", "|---|---:|---:|"]
    lines += [
        f"| {code(p, cell=True) if p else '(table root)'} | {n:,} | {human_bytes(b)} |"
        for p, n, b in partitions[:PARTITIONS_SHOWN]
    ]
    if len(partitions) > PARTITIONS_SHOWN:
        rest = partitions[PARTITIONS_SHOWN:]
        count, size = sum(n for _, n, _ in rest), sum(b for _, _, b in rest)
        lines.append(f"| ... {len(rest):,} more partitions | {count:,} | {human_bytes(size)} |")
    files = node.actions_of(DeleteFile)
    lines += ["", f"First {min(FILES_SHOWN, len(files))} of {len(files):,} files (all in plan.json):", ""]
    lines += [f"- {code(a.target)} ({human_bytes(a.size)})" for a in files[:FILES_SHOWN]]
    return lines


def _node_details(node: NodePlan) -> list[str]:
    risks = node_risks(node)
    high = [r.marked for r in risks if r.level is RiskLevel.HIGH]
    flags = f" · {md('; '.join(high))}" if high else ""
    lines = [f"**{code(node.id)}**: {md(node_headline(node))}{flags}", ""]
    lines += [f"- {md(_short(reason))}" for reason in node.reasons]
    actions = other_actions(node.actions)
    lines += [f"- {md(_short(a, 200))}" for a in actions[:ACTIONS_SHOWN]]
    if len(actions) > ACTIONS_SHOWN:
        lines.append(f"- ... and {len(actions) - ACTIONS_SHOWN:,} more actions (plan.json)")
    lines += [f"- risk: {md(r.detail)}" for r in risks]
    return [*lines, *_partitions(node), ""]


def _table_details(figures: TableFigures) -> list[str]:
    table: TablePlan = figures.table
    summary = "; ".join(node_headline(n) for n in figures.changes) or "blocked"
    lines = [
        f"<details><summary><code>{html_text(table.name)}</code>: "
        f"{html_text(_short(summary, 200))}</summary>",
        "",
        f"{code(table.path)} · {md(table.table_type)} · table version {table.version}",
        "",
    ]
    for node in table.nodes:  # the idle ones too: their reasons explain the rest
        lines += _node_details(node)
    return [*lines, "</details>", ""]


def _details(figures: list[TableFigures], room: int) -> list[str]:
    lines = ["### Details", ""]
    used = len("\n".join(lines))
    shown = 0
    for f in figures:
        block = _table_details(f)
        size = len("\n".join(block)) + 1
        if used + size > room:
            break
        lines += block
        used += size
        shown += 1
    if shown < len(figures):
        lines.append(
            f"Details of {len(figures) - shown:,} more tables do not fit in a comment: "
            "`maintainer show` prints them, plan.json has everything."
        )
    return lines if shown or len(figures) else []


def render_markdown(plan: Plan, plan_id: str, review: ReviewContext | None = None) -> str:
    review = review or ReviewContext()
    figures = sorted((table_figures(t) for t in plan.tables), key=_order)
    changed = [f for f in figures if f.changes]
    idle = sorted((f for f in figures if f.idle), key=lambda f: f.table.name)
    headline = summary_line(plan, maintenance=review.maintenance_line())
    lines = [f"## maintainer plan {code(plan_id[:12])}", "", f"**{md(headline)}**", ""]
    lines += _provenance(plan, plan_id, review.provenance)
    lines += _risks(plan)
    lines += _changes(review)
    lines += _changed_tables(changed)
    lines += _blocked(plan)
    lines += _deferred(plan)
    lines += _idle(idle)
    head = "\n".join(lines)
    with_details = [f for f in figures if f.changes or (f.blocked and shared_block_reason(f.table) is None)]
    lines += _details(with_details, BUDGET - len(head))
    return "\n".join(lines).rstrip("\n") + "\n"
