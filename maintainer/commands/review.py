"""The review context of a plan, and the state it is compared with.

* **Provenance**: when the plan was made, by which maintainer, from which git commit (of the
  project folder), with which selection and target.
* **Last applied state**: ``apply`` keeps, per table, the resolved spec it last applied in
  ``<target_path>/last_applied/manifest.json`` (the plan directory's ``manifest.json``, merged
  table by table). ``plan`` compares the project with it (or with ``--state DIR``) and lists
  what changed in the manifests, by kind. In CI, keep ``last_applied/`` as an artifact of the
  apply job and pass it with ``--state``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject
from maintainer.console import print_warning
from maintainer.errors import MaintainerError
from maintainer.planning.changes import compare_specs
from maintainer.planning.review import Provenance, ReviewContext
from maintainer.secrets import redact_tree
from maintainer.storage.limits import loads_bounded, read_local_capped

MANIFEST_FILE = "manifest.json"
LAST_APPLIED_DIR = "last_applied"
APPLIED_FILE = "applied.json"
MAX_STATE_BYTES = 64 * 1024 * 1024
GIT_TIMEOUT_S = 5


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def provenance(loaded: LoadedProject, options: CommonOptions, now: datetime) -> Provenance:
    root = loaded.project.root
    commit = _git(root, "rev-parse", "HEAD")
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD") if commit else None
    status = _git(root, "status", "--porcelain", "--", ".") if commit else None
    return Provenance(
        made_at=now.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        maintainer_version=__version__,
        git_commit=commit,
        git_branch=None if branch == "HEAD" else branch,
        git_dirty=bool(status) if status is not None else None,
        select=options.select,
        exclude=options.exclude,
        state=str(options.state) if options.state else None,
        tables_selected=len({node.table for node in loaded.selected}),
        tables_in_project=len(loaded.project.tables),
    )


def current_specs(loaded: LoadedProject) -> dict[str, dict[str, Any]]:
    return {spec.name: spec.model_dump(mode="json") for spec in loaded.project.tables}


_STATE_HINT = "it is written by maintainer (compile, apply): delete it or write it again"


def _read_json(path: Path) -> dict[str, Any] | None:
    """A state file (at most MAX_STATE_BYTES, bounded JSON); None where it is missing."""
    try:
        raw = read_local_capped(
            path, MAX_STATE_BYTES, what=path.name, error=MaintainerError, hint=_STATE_HINT
        )
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MaintainerError(f"cannot read {path}: {exc}", where=str(path), hint=_STATE_HINT) from exc
    data = loads_bounded(raw, what=path.name, where=str(path), error=MaintainerError, hint=_STATE_HINT)
    return data if isinstance(data, dict) else None


def specs_of(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    tables = manifest.get("tables")
    if not isinstance(tables, Mapping):
        return {}
    return {
        str(name): dict(entry["spec"])
        for name, entry in tables.items()
        if isinstance(entry, Mapping) and isinstance(entry.get("spec"), Mapping)
    }


def _baseline(loaded: LoadedProject, options: CommonOptions) -> tuple[str, Path] | None:
    """(how to name it, its manifest.json): --state, else the last applied state if kept."""
    if options.state is not None:
        return f"--state {options.state}", options.state / MANIFEST_FILE
    state = loaded.project.target_dir / LAST_APPLIED_DIR
    if not (state / MANIFEST_FILE).is_file():
        return None
    applied = _read_json(state / APPLIED_FILE) or {}
    plan_id, when = str(applied.get("plan_id", ""))[:12], applied.get("applied_at")
    name = f"the last applied plan {plan_id}" + (f" ({when})" if when else "") if plan_id else str(state)
    return name, state / MANIFEST_FILE


def review_context(loaded: LoadedProject, options: CommonOptions, now: datetime) -> ReviewContext:
    made = provenance(loaded, options, now)
    baseline = _baseline(loaded, options)
    if baseline is None:
        return ReviewContext(made)
    name, path = baseline
    try:
        manifest = _read_json(path)
    except MaintainerError as exc:
        print_warning(f"{exc}; the plan lists no manifest changes")
        return ReviewContext(made)
    if manifest is None:
        return ReviewContext(made)
    previous = specs_of(manifest)
    current = current_specs(loaded)
    if loaded.project.tables and len({n.table for n in loaded.selected}) < len(loaded.project.tables):
        selected = {node.table for node in loaded.selected}
        previous = {k: v for k, v in previous.items() if k in selected}
        current = {k: v for k, v in current.items() if k in selected}
    return ReviewContext(made, name, tuple(compare_specs(previous, current)))


def keep_last_applied(target_dir: Path, plan_dir: Path, plan_id: str, applied_at: str) -> Path | None:
    """After an apply: merge the plan's manifest.json into ``last_applied/manifest.json`` (the
    tables of this plan replace theirs) and record which plan it was; None when the plan
    directory has no manifest.json (made by an older maintainer)."""
    try:
        planned = _read_json(plan_dir / MANIFEST_FILE)
    except MaintainerError as exc:
        print_warning(f"{exc}; the last applied state is not updated")
        return None
    if planned is None:
        return None
    state = target_dir / LAST_APPLIED_DIR
    try:
        kept = _read_json(state / MANIFEST_FILE) or {}
    except MaintainerError:
        kept = {}  # unreadable: start again from this plan
    tables = dict(kept.get("tables") or {}) if isinstance(kept.get("tables"), Mapping) else {}
    tables.update(planned.get("tables") or {})
    merged = redact_tree({**planned, "tables": dict(sorted(tables.items()))})
    applied = {"plan_id": plan_id, "applied_at": applied_at}
    try:
        state.mkdir(parents=True, exist_ok=True)
        (state / MANIFEST_FILE).write_text(json.dumps(merged, sort_keys=True) + "\n", encoding="utf-8")
        (state / APPLIED_FILE).write_text(json.dumps(applied, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        print_warning(f"cannot keep the last applied state in {state}: {exc}")
        return None
    return state
