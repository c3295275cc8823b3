"""Progress of long work, for a person at a terminal or for a CI log.

At a terminal: a rich progress bar (on stderr) and one line per finished node. Elsewhere (CI,
a file, ``--log-format json``): dbt's lines, ``12:00:01  3 of 27 START t.clean`` and
``12:00:02  3 of 27 OK t.clean ... [0.4s]``, and every ``HEARTBEAT_S`` a line naming what is
still running, so a long compaction never looks like a hang. ``--quiet`` keeps only failures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from maintainer.commands.console_log import log_event
from maintainer.console import interactive, literal, settings, stderr
from maintainer.graph import NodeId
from maintainer.logs import fields, get_logger
from maintainer.runner.results import NodeResult, NodeRunStatus

log = get_logger(__name__)

HEARTBEAT_S = 30.0
PLAN_REPORT_S = 10.0
_STYLE = {
    NodeRunStatus.SUCCESS: "[green]OK[/green]",
    NodeRunStatus.ERROR: "[bold red]ERROR[/bold red]",
    NodeRunStatus.SKIPPED: "[yellow]SKIP[/yellow]",
    NodeRunStatus.BLOCKED: "[bold yellow]BLOCKED[/bold yellow]",
    NodeRunStatus.CANCELLED: "[yellow]CANCELLED[/yellow]",
}
_WORD = {
    NodeRunStatus.SUCCESS: "OK",
    NodeRunStatus.ERROR: "ERROR",
    NodeRunStatus.SKIPPED: "SKIP",
    NodeRunStatus.BLOCKED: "BLOCKED",
    NodeRunStatus.CANCELLED: "CANCELLED",
}


def _clock() -> str:
    return datetime.now().strftime("%H:%M:%S")


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{seconds:.1f}s"


def node_lines(result: NodeResult) -> list[str]:
    """The finished node and its drift, as printed at a terminal."""
    timing = f"[dim]({result.timing_s:.1f}s)[/dim]"
    lines = [f"{_STYLE[result.status]} {literal(result.id)} {timing} {literal(result.message)}"]
    lines += [f"    [yellow]drift[/yellow] {literal(d.path)}: {literal(d.reason)}" for d in result.drift]
    return lines


class NodeProgress:
    """Receives the DAG walk's events (``start``/``finish``) and reports them."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.index: dict[NodeId, int] = {}
        self.started: dict[NodeId, float] = {}
        self.lock = threading.Lock()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, kind: str, node: NodeId, result: NodeResult | None) -> None:
        with self.lock:
            if kind == "start":
                self._start(node)
            else:
                self._finish(node, result)

    def _start(self, node: NodeId) -> None:
        self.index[node] = len(self.index) + 1
        self.started[node] = time.monotonic()
        if self.bar is not None:
            self._describe()
        elif not settings.quiet:
            number = f"{self.index[node]} of {self.total}"
            log_event(
                log,
                "node_start",
                f"{_clock()}  {number} START {literal(str(node))}",
                node=node,
                index=self.index[node],
                total=self.total,
            )

    def _finish(self, node: NodeId, result: NodeResult | None) -> None:
        self.started.pop(node, None)
        if node not in self.index:  # skipped without starting: its own number, like the others
            self.index[node] = len(self.index) + 1
        number = f"{self.index[node]} of {self.total}"
        if self.bar is not None:
            self.bar.advance(self.task)
            self._describe()
            if result is not None:
                self._log_result(result, *node_lines(result))
            return
        if result is None:
            return
        if result.status is NodeRunStatus.ERROR and settings.quiet:
            log.error(
                f"{result.id}: {result.message}",
                extra=fields(node=result.id, event="node_end", status=result.status.value),
            )
            return
        if settings.quiet:
            return
        text = (
            f"{_clock()}  {number} {_STYLE[result.status]} {literal(result.id)} {literal(result.message)} "
            f"[dim]\\[{_WORD[result.status]} in {result.timing_s:.1f}s][/dim]"
        )
        drifts = [f"    [yellow]drift[/yellow] {literal(d.path)}: {literal(d.reason)}" for d in result.drift]
        self._log_result(result, text, *drifts)

    @staticmethod
    def _log_result(result: NodeResult, line: str, *drifts: str) -> None:
        """The finished node (``line``, as a terminal shows it) and a record per drift."""
        figures = {
            "seconds": round(result.timing_s, 3),
            "message": result.message,
            "drift": len(result.drift),
        }
        log_event(log, "node_end", line, node=result.id, status=result.status.value, **figures)
        for drift, shown in zip(result.drift, drifts, strict=True):
            log_event(log, "drift", shown, node=result.id, path=drift.path, reason=drift.reason)

    def _describe(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=literal(", ".join(sorted(map(str, self.started)))))

    def running(self) -> list[str]:
        """The nodes started and not finished yet, oldest first. Without the lock: a signal
        handler asks, on the main thread, which may hold it (a copy of a dict is atomic)."""
        started = dict(self.started)
        return [str(node) for node, _ in sorted(started.items(), key=lambda item: item[1])]

    def heartbeat(self) -> None:
        """Name what is still running (a log has no progress bar)."""
        with self.lock:
            now = time.monotonic()
            running = sorted(self.started.items(), key=lambda item: item[1])
        if running and not settings.quiet:
            names = ", ".join(f"{node} ({_duration(now - since)})" for node, since in running)
            log_event(log, "heartbeat", f"{_clock()}  still running: {literal(names)}",
                      running=[str(node) for node, _ in running])  # fmt: skip

    @contextmanager
    def shown(self) -> Iterator[NodeProgress]:
        if not interactive():
            with every(HEARTBEAT_S, self.heartbeat):
                yield self
            return
        with progress_bar("applying", self.total) as (bar, task):
            self.bar, self.task = bar, task
            try:
                yield self
            finally:
                self.bar = None


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[tuple[Progress, Any]]:
    """A transient bar on stderr, for a person at a terminal: (the bar, its task)."""
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))  # fmt: skip
    with Progress(*columns, console=stderr, transient=True) as bar:
        yield bar, bar.add_task("", total=total)


@contextmanager
def every(seconds: float, action: Any) -> Iterator[None]:
    """Call ``action`` every ``seconds`` in a daemon thread while the block runs."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(seconds):
            action()

    thread = threading.Thread(target=loop, name="maintainer-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=1)


class TableProgress:
    """Tables read by ``plan``: a bar at a terminal, a line every ``PLAN_REPORT_S`` elsewhere."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.since = time.monotonic()
        self.bar: Progress | None = None
        self.task: Any = None
        self.lock = threading.Lock()

    def __call__(self, name: str) -> None:
        with self.lock:
            self.done += 1
            if self.bar is not None:
                self.bar.update(self.task, advance=1, description=literal(name))

    def report(self) -> None:
        with self.lock:
            done = self.done
        if not settings.quiet:
            elapsed = _duration(time.monotonic() - self.since)
            text = f"{_clock()}  read {done:,} of {self.total:,} tables ({elapsed})"
            log_event(log, "tables_read", text, done=done, total=self.total)

    @contextmanager
    def shown(self) -> Iterator[TableProgress]:
        if not interactive():
            with every(PLAN_REPORT_S, self.report):
                yield self
            return
        with progress_bar("reading tables", self.total) as (bar, task):
            self.bar, self.task = bar, task
            try:
                yield self
            finally:
                self.bar = None
