"""Apply takes the stricter rule: the manifests may have changed since the plan was made.

Before a node with changes runs, its safety settings are checked again against the project as
it is now (the plan does not carry them; what it carries was decided under the manifests of
its day):

* **enabled**: a service whose manifest block is gone or ``enabled: false`` now does not run;
* **metadata-table policy**: a plan that drops the metadata table does not drop it once the
  manifest says ``sync`` or ``refuse``;
* **gates**: the node's figures (files and bytes a clean deletes, bytes a compaction reads) are
  measured against the gates of today (:func:`maintainer.planning.gates.gated`);
* **readers**: a clean or archive that would cut off a reader declared today is not run
  (:func:`maintainer.planning.readers.reader_checked`, on the table as it is now).

A node that fails one of them is skipped, naming the setting and where it is declared, and the
run says so; with ``refuse_stale`` (in CI) the whole plan is refused before anything runs, as a
stale plan is. The runner calls :class:`Recheck` (the commands wire it in: the runner does not
import planning). Retention (``commits_retained`` and the other clean settings) and a rollback's
``min_age`` need no check here: the executors re-plan with today's settings and do only the
intersection with the plan, which is the stricter of the two by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from maintainer.artifact.model import DropMetadataTable, NodePlan, NodeStatus, TablePlan
from maintainer.catalog import installed
from maintainer.clock import Clock, utc_now
from maintainer.hudi.table.state import TableState, open_table
from maintainer.planning.gates import gated
from maintainer.planning.readers import reader_checked
from maintainer.project.models import TableSpec

TableOpener = Callable[[], TableState]


@dataclass(frozen=True, slots=True)
class Stricter:
    """A node the current manifests no longer allow, and why."""

    table: str
    service: str
    reasons: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.table}.{self.service}: " + "; ".join(self.reasons)


def _disabled(node: NodePlan, spec: TableSpec) -> list[str]:
    declared = installed().by_name.get(node.service)
    block = declared.block if declared is not None else node.service
    if getattr(spec, block, None) is not None:
        return []
    return [f"{block} is disabled (or removed) in {spec.location} since the plan was made"]


def _metadata_policy(node: NodePlan, spec: TableSpec, version: int) -> list[str]:
    policy = spec.metadata_policy(version)
    if not node.actions_of(DropMetadataTable) or policy == "drop":
        return []
    return [f"the plan drops the metadata table, and {spec.location} now says metadata_table: {policy}"]


def _blocked(checked: NodePlan, setting: str) -> list[str]:
    if checked.status is not NodeStatus.BLOCKED:
        return []
    return [f"under today's {setting}: {reason}" for reason in checked.reasons]


def stricter_now(
    node: NodePlan, spec: TableSpec, version: int, opener: TableOpener, now: datetime
) -> Stricter | None:
    """Why the current ``spec`` no longer allows the planned ``node`` (None: it still does).
    ``opener`` is called only when a reader must be checked."""
    if node.status is not NodeStatus.CHANGES:
        return None
    reasons = [*_disabled(node, spec), *_metadata_policy(node, spec, version)]
    reasons += _blocked(gated(node, spec), "gates")
    if spec.readers and not reasons:
        reasons += _blocked(reader_checked(node, spec, opener(), now), "readers")
    return Stricter(node.table, node.service, tuple(reasons)) if reasons else None


@dataclass(frozen=True)
class Recheck:
    """``recheck(node, spec, table)``: why today's manifests no longer allow the node (empty:
    they do), the table opened with the target's storage options when a reader needs it."""

    storage_options: Mapping[str, Any] = field(default_factory=dict)
    clock: Clock = utc_now

    def __call__(self, node: NodePlan, spec: TableSpec, table: TablePlan) -> tuple[str, ...]:
        def opener() -> TableState:
            return open_table(table.path, self.storage_options)

        found = stricter_now(node, spec, table.version, opener, self.clock())
        return found.reasons if found is not None else ()
