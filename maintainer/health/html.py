"""``maintainer status --format html``: one self-contained page (no network, no CDN, no server):
the fleet table, sortable by any column, and charts drawn in the page from the figures it
embeds (log backlog, small-file share and score per table; score trends when a history is
given). Every value from a table or a manifest is escaped."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence

from maintainer.health.formats import duration, state_word
from maintainer.health.records import FleetHealth, TableHealth
from maintainer.units import human_bytes

TrendPoints = Mapping[str, Sequence[tuple[str, float]]]
"""Per table, (time, score) points of earlier runs, oldest first."""

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d232a; }
h1 { font-size: 20px; margin: 0 0 4px; }
p.meta { color: #5b6570; margin: 0 0 16px; }
table.fleet { border-collapse: collapse; width: 100%; margin-bottom: 24px; }
table.fleet th, table.fleet td { border-bottom: 1px solid #dde2e7; padding: 4px 8px; text-align: right; }
table.fleet th { cursor: pointer; background: #f3f5f7; user-select: none; }
table.fleet th:first-child, table.fleet td:first-child, table.fleet td.text { text-align: left; }
tr.overdue td.state { color: #b3261e; font-weight: 600; }
tr.unreadable td.state { color: #7a4b00; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 24px; }
.chart h2 { font-size: 15px; margin: 0 0 6px; }
.chart svg { width: 100%; height: auto; border: 1px solid #dde2e7; }
.chart .bar { fill: #3b6ea8; } .chart .over { fill: #b3261e; }
.chart text { font-size: 11px; fill: #1d232a; }
.chart .line { fill: none; stroke-width: 1.5; }
"""

SCRIPT = """
(function () {
  const data = JSON.parse(document.getElementById('fleet-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const WORST = 25;
  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function bars(id, all, limit, format) {
    const svg = document.getElementById(id);
    const rows = all.slice().sort((a, b) => b.value - a.value).slice(0, WORST);
    const width = 800, row = 18, left = 360, height = Math.max(row * rows.length + 10, 40);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    const top = Math.max(limit || 0, ...rows.map(r => r.value), 1e-9);
    rows.forEach((r, i) => {
      const y = 5 + i * row, w = (width - left - 60) * r.value / top;
      svg.appendChild(el('text', {x: left - 6, y: y + 12, 'text-anchor': 'end'}, r.table));
      svg.appendChild(el('rect', {x: left, y: y + 2, width: Math.max(w, 0.5), height: row - 5,
        class: (limit !== null && r.value > limit) ? 'bar over' : 'bar', 'data-table': r.table}));
      svg.appendChild(el('text', {x: left + w + 4, y: y + 12}, format(r.value)));
    });
  }
  function trends(id, series) {
    const svg = document.getElementById(id);
    const width = 600, height = 220, pad = 30;
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    const names = Object.keys(series).filter(n => series[n].length > 0);
    const yOf = v => height - pad - (height - 2 * pad) * v / 100;
    [0, 50, 100].forEach(v => svg.appendChild(el('text', {x: 2, y: yOf(v) + 4}, String(v))));
    if (!names.length) {
      svg.appendChild(el('text', {x: 10, y: 20}, 'no history yet: each apply records the figures'));
      return;
    }
    const times = names.flatMap(n => series[n].map(p => Date.parse(p[0])));
    const t0 = Math.min(...times), t1 = Math.max(...times, t0 + 1);
    names.forEach((n, i) => {
      const points = series[n].map(p => [pad + (width - 2 * pad) * (Date.parse(p[0]) - t0) / (t1 - t0),
        yOf(p[1])]);
      const colour = 'hsl(' + ((i * 67) % 360) + ',60%,40%)';
      svg.appendChild(el('polyline', {class: 'line', stroke: colour,
        points: points.map(p => p.join(',')).join(' '), 'data-table': n}));
      points.forEach(p => svg.appendChild(el('circle', {cx: p[0], cy: p[1], r: 3, fill: colour})));
      const last = points[points.length - 1];
      svg.appendChild(el('text', {x: Math.min(last[0] + 5, width - 120), y: last[1] - 4, fill: colour}, n));
    });
  }
  const readable = data.tables.filter(t => !t.error);
  const logLimit = null;
  bars('chart-logs', readable.map(t => ({table: t.table, value: t.log_backlog.max_log_files_per_slice})),
    logLimit, v => String(v));
  bars('chart-small', readable.map(t => ({table: t.table, value: t.small_files.share})), null,
    v => Math.round(v * 100) + '%');
  bars('chart-score', data.tables.map(t => ({table: t.table, value: 100 - t.score})), null,
    v => 'score ' + String(100 - v));
  trends('chart-trend', data.trends || {});
  document.querySelectorAll('table.fleet th').forEach((th, column) => {
    th.addEventListener('click', () => {
      const body = th.closest('table').tBodies[0];
      const rows = Array.from(body.rows);
      const ascending = th.dataset.order !== 'asc';
      th.dataset.order = ascending ? 'asc' : 'desc';
      rows.sort((a, b) => {
        const x = a.cells[column].dataset.sort, y = b.cells[column].dataset.sort;
        const nx = parseFloat(x), ny = parseFloat(y);
        const cmp = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return ascending ? cmp : -cmp;
      });
      rows.forEach(r => body.appendChild(r));
    });
  });
  document.body.dataset.rendered = 'yes';
})();
"""

COLUMNS = ("table", "owner", "state", "score", "max logs/slice", "small files", "pending", "stuck",
           "last clean", "active instants", "clean frees")  # fmt: skip


def _cell(text: str, sort: str | float, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    return f'<td{klass} data-sort="{html.escape(str(sort))}">{html.escape(text)}</td>'


def _row(table: TableHealth) -> str:
    logs, small, versions, timeline = table.log_backlog, table.small_files, table.versions, table.timeline
    clean = next((r for r in table.last_runs if r.service == "clean"), None)
    clean_age = clean.age_seconds if clean is not None and clean.age_seconds is not None else None
    stuck = sum(1 for p in table.pending if p.stuck)
    freed = versions.clean_would_free_bytes if versions is not None else None
    cells = [
        _cell(table.table, table.table, "text"),
        _cell(table.owner or "-", table.owner or "", "text"),
        _cell(state_word(table), state_word(table), "text state"),
        _cell(f"{table.score:g}", table.score),
        _cell(
            str(logs.max_log_files_per_slice) if logs else "-", logs.max_log_files_per_slice if logs else -1
        ),
        _cell(f"{small.share:.0%}" if small else "-", small.share if small else -1),
        _cell(str(len(table.pending)), len(table.pending)),
        _cell(str(stuck), stuck),
        _cell(
            duration(clean_age) if clean_age is not None else "never",
            clean_age if clean_age is not None else 1e12,
        ),
        _cell(
            str(timeline.active_instants) if timeline else "-", timeline.active_instants if timeline else -1
        ),
        _cell(human_bytes(freed) if freed is not None else "-", freed if freed is not None else -1),
    ]
    return f'<tr class="{state_word(table)}">' + "".join(cells) + "</tr>"


def _script_json(data: object) -> str:
    """JSON safe inside a <script> element (no ``</script>``, no ``<!--``)."""
    return (
        json.dumps(data, sort_keys=True)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )


def to_html(fleet: FleetHealth, data: Mapping[str, object], trends: TrendPoints | None = None) -> str:
    """The page; ``data``: the fleet as ``status --format json`` writes it."""
    embedded = dict(data)
    embedded["trends"] = {name: [list(p) for p in points] for name, points in (trends or {}).items()}
    overdue = sum(1 for t in fleet.tables if t.overdue)
    unreadable = sum(1 for t in fleet.tables if t.error)
    title = f"Fleet health: {fleet.project} ({fleet.target})"
    header = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    rows = "\n".join(_row(t) for t in fleet.tables)
    charts = "".join(
        f'<div class="chart"><h2>{html.escape(name)}</h2><svg id="{chart_id}" role="img"></svg></div>'
        for chart_id, name in (
            ("chart-logs", "Most log files in one file slice (worst 25)"),
            ("chart-small", "Share of small base files (worst 25)"),
            ("chart-score", "Points short of a perfect score (worst 25)"),
            ("chart-trend", "Health score over time"),
        )
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{STYLE}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="meta">{len(fleet.tables)} tables, {overdue} overdue, {unreadable} unreadable; generated
{html.escape(fleet.generated_at)} by maintainer status. Click a column to sort.</p>
<table class="fleet"><thead><tr>{header}</tr></thead><tbody>
{rows}
</tbody></table>
<div class="charts">{charts}</div>
<script type="application/json" id="fleet-data">{_script_json(embedded)}</script>
<script>{SCRIPT}</script>
</body></html>
"""
