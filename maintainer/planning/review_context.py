"""What a reviewer needs beside the plan itself: where it comes from (when, which commit and
version, which selection and target) and what changed in the manifests since the baseline.

Kept in the plan directory's ``plan_meta.json`` (outside the hashed body, which holds no
wall-clock values), so ``maintainer show`` renders the same review as ``maintainer plan``. The
manifest changes are there in full (``changes``: one entry per table and option, with the
``source`` line that made it); the views group them by that line. They are not in plan.json:
they describe the manifests, not what apply does, and would change the plan id of an identical
plan made against another baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from maintainer.catalog import ChangeKind
from maintainer.planning.changes import (
    ChangeGroup,
    SpecChange,
    group_changes,
    maintenance_changes,
)


@dataclass(frozen=True, slots=True)
class Provenance:
    made_at: str = ""
    maintainer_version: str = ""
    git_commit: str | None = None
    git_branch: str | None = None
    git_dirty: bool | None = None
    select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    selector: str | None = None
    state: str | None = None
    tables_selected: int = 0
    tables_in_project: int = 0

    @property
    def partial(self) -> bool:
        return self.tables_selected < self.tables_in_project

    def selection(self) -> str:
        """``all 1,000 tables`` or ``--select tag:nightly --exclude b: 12 of 1,000 tables``."""
        flags = [f"--select {' '.join(self.select)}"] if self.select else []
        flags += [f"--exclude {' '.join(self.exclude)}"] if self.exclude else []
        flags += [f"--selector {self.selector}"] if self.selector else []
        flags += [f"--state {self.state}"] if self.state else []
        if not self.partial:
            return (" ".join(flags) + ": " if flags else "") + f"all {self.tables_in_project:,} tables"
        chosen = f"{self.tables_selected:,} of {self.tables_in_project:,} tables"
        return f"{' '.join(flags) or 'a selection'}: {chosen}"

    def commit(self) -> str | None:
        if self.git_commit is None:
            return None
        text = self.git_commit[:12]
        if self.git_branch:
            text += f" ({self.git_branch})"
        if self.git_dirty:
            text += ", with uncommitted changes"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "made_at": self.made_at,
            "maintainer_version": self.maintainer_version,
            "git": {"commit": self.git_commit, "branch": self.git_branch, "dirty": self.git_dirty},
            "selection": {
                "select": list(self.select),
                "exclude": list(self.exclude),
                "selector": self.selector,
                "state": self.state,
                "tables_selected": self.tables_selected,
                "tables_in_project": self.tables_in_project,
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Provenance:
        git = data.get("git") or {}
        selection = data.get("selection") or {}
        return cls(
            made_at=str(data.get("made_at", "")),
            maintainer_version=str(data.get("maintainer_version", "")),
            git_commit=git.get("commit"),
            git_branch=git.get("branch"),
            git_dirty=git.get("dirty"),
            select=tuple(selection.get("select") or ()),
            exclude=tuple(selection.get("exclude") or ()),
            selector=selection.get("selector"),
            state=selection.get("state"),
            tables_selected=int(selection.get("tables_selected") or 0),
            tables_in_project=int(selection.get("tables_in_project") or 0),
        )


@dataclass(frozen=True, slots=True)
class ReviewContext:
    """Provenance, and the manifest changes since ``baseline`` (None: nothing to compare with)."""

    provenance: Provenance | None = None
    baseline: str | None = None
    changes: tuple[SpecChange, ...] = field(default=())

    def groups(self) -> list[ChangeGroup]:
        return group_changes(self.changes)

    @property
    def maintenance(self) -> dict[ChangeKind, int]:
        """Tables whose maintenance the manifest changes alter, by most severe kind."""
        return maintenance_changes(self.changes)

    @property
    def alters_maintenance(self) -> bool:
        return bool(self.maintenance)

    def maintenance_line(self) -> str | None:
        """``maintenance changes for 300 tables: 200 destructive, 100 rewrite``, or None."""
        counts = self.maintenance
        if not counts:
            return None
        total = sum(counts.values())
        kinds = ", ".join(f"{n:,} {kind.value}" for kind, n in counts.items())
        return f"maintenance changes for {total:,} {'table' if total == 1 else 'tables'}: {kinds}"

    def to_json(self) -> dict[str, Any]:
        return {
            "provenance": self.provenance.to_json() if self.provenance else None,
            "changes_since": self.baseline,
            "changes": [change.to_json() for change in self.changes],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReviewContext:
        """From ``plan_meta.json``; a meta file of an older version gives an empty context."""
        provenance = data.get("provenance")
        try:
            return cls(
                Provenance.from_json(provenance) if isinstance(provenance, Mapping) else None,
                data.get("changes_since"),
                tuple(SpecChange.from_json(c) for c in data.get("changes") or ()),
            )
        except (KeyError, TypeError, ValueError):
            return cls()
