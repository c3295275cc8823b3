"""The review context of a plan, and the state it is compared with.

* **Provenance**: when the plan was made, by which maintainer, from which git commit (of the
  project folder), with which selection and target.
* **Last applied state**: ``apply`` keeps, per table, the resolved spec it last applied in the
  state backend (:mod:`maintainer.runner.state_backend`: ``state:`` of the target or project, a
  folder or an s3://, gs:// prefix; default ``<target_path>``), merged table by table under a
  conditional write, with the run's results. ``plan`` compares the project with it (or with
  ``--state DIR``, a folder with a ``manifest.json``) and lists what changed in the manifests,
  by kind.
"""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject
from maintainer.errors import MaintainerError
from maintainer.graph.manifest import (
    Applied,
    Baseline,
    ManifestMetadata,
    ManifestTable,
    parse_baseline,
    parse_compiled,
)
from maintainer.logs import fields, get_logger
from maintainer.planning.changes import compare_specs
from maintainer.planning.review_context import Provenance, ReviewContext
from maintainer.project.loader import Project
from maintainer.runner.results import RunResults
from maintainer.runner.state_backend import (
    RUNS_DIR,
    StateBackend,
    failed_tables,
    run_id,
    table_figures,
)
from maintainer.storage.limits import loads_bounded, read_local_capped

log = get_logger(__name__)

MANIFEST_FILE = "manifest.json"
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
    return {spec.name: spec.as_json() for spec in loaded.project.tables}


def current_sources(loaded: LoadedProject) -> dict[str, dict[str, str]]:
    project = loaded.project
    return {spec.name: project.sources(spec.name) for spec in project.tables}


_STATE_HINT = "it is written by maintainer (compile, apply): delete it or write it again"


def _read_bytes(path: Path) -> bytes | None:
    """A state file (at most MAX_STATE_BYTES, bounded JSON); None where it is missing."""
    try:
        raw = read_local_capped(
            path, MAX_STATE_BYTES, what=path.name, error=MaintainerError, hint=_STATE_HINT
        )
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MaintainerError(f"cannot read {path}: {exc}", where=str(path), hint=_STATE_HINT) from exc
    loads_bounded(raw, what=path.name, where=str(path), error=MaintainerError, hint=_STATE_HINT)
    return raw


def _read_baseline(path: Path) -> Baseline | None:
    """``--state DIR``'s manifest.json (compiled, or an applied state); None where it is missing."""
    raw = _read_bytes(path)
    if raw is None:
        return None
    return parse_baseline(raw, what=path.name, where=str(path), error=MaintainerError, hint=_STATE_HINT)


def specs_of(baseline: Baseline) -> dict[str, dict[str, Any]]:
    return {name: dict(table.spec) for name, table in baseline.tables.items()}


def sources_of(baseline: Baseline) -> dict[str, dict[str, str]]:
    """Where each table's values were written, as kept in a manifest.json."""
    return {name: dict(table.sources) for name, table in baseline.tables.items()}


def state_backend(project: Project) -> StateBackend:
    """The project's state backend (``state:`` of its target or project, else target_path)."""
    return StateBackend.at(project.state_location, project.target.settings.storage_options)


def _baseline(loaded: LoadedProject, options: CommonOptions) -> tuple[str, Baseline] | None:
    """(how to name it, its manifest): --state, else the last applied state if there is one."""
    if options.state is not None:
        manifest = _read_baseline(options.state / MANIFEST_FILE)
        return None if manifest is None else (f"--state {options.state}", manifest)
    state = state_backend(loaded.project).read_manifest()
    if state is None:
        return None
    applied = state.applied
    return f"the last applied plan {applied.plan_id[:12]} ({applied.applied_at})", state


def review_context(loaded: LoadedProject, options: CommonOptions, now: datetime) -> ReviewContext:
    made = provenance(loaded, options, now)
    try:
        baseline = _baseline(loaded, options)
    except MaintainerError as exc:
        log.warning(f"{exc}; the plan lists no manifest changes", extra=fields(event="no_baseline"))
        return ReviewContext(made)
    if baseline is None:
        return ReviewContext(made)
    name, manifest = baseline
    previous = specs_of(manifest)
    current = current_specs(loaded)
    if loaded.project.tables and len({n.table for n in loaded.selected}) < len(loaded.project.tables):
        selected = {node.table for node in loaded.selected}
        previous = {k: v for k, v in previous.items() if k in selected}
        current = {k: v for k, v in current.items() if k in selected}
    changes = compare_specs(previous, current, sources_of(manifest), current_sources(loaded))
    return ReviewContext(made, name, tuple(changes))


def check_state(project: Project) -> None:
    """Before apply touches a table: the state backend can be opened and what it holds read,
    so that a state apply could not keep refuses the apply, not its end."""
    try:
        state_backend(project).read_manifest()
    except MaintainerError as exc:
        raise type(exc)(
            f"the applied state cannot be kept: {exc.message}; nothing was applied",
            where=exc.where or project.state_location,
            hint=exc.hint or "check `state:` (project or profile target) and its storage options",
        ) from exc


def keep_applied_state(
    project: Project, plan_dir: Path, results: RunResults, run_results: bytes, invocation_id: str
) -> str:
    """After an apply: record the run (its run_results.json and per-table figures) in the state
    backend and merge into the last applied manifest the tables of the plan's manifest.json
    that no failed node belongs to; says what it kept. A plan directory without a readable
    manifest.json (made by an older maintainer) keeps no table."""
    backend = state_backend(project)
    run = run_id(results.finished_at, invocation_id)
    try:
        backend.record_run(run, run_results, table_figures(results.nodes))
        tables, metadata = _applied_tables(plan_dir, failed_tables(results.nodes))
        if not tables or metadata is None:
            return f"run {run} recorded in {backend.where(RUNS_DIR)}; no table's applied state changed"
        update = backend.keep_applied(tables, Applied(results.plan_id, results.finished_at, run), metadata)
    except MaintainerError as exc:
        raise type(exc)(
            f"the apply is done, but its state was not kept: {exc.message}",
            where=exc.where,
            hint=exc.hint
            or "the next plan compares the manifests with the state as it was before this apply",
        ) from exc
    retried = f", merged after {update.attempts - 1} concurrent update(s)" if update.attempts > 1 else ""
    return f"applied state of {len(update.tables)} table(s) kept in {update.uri} (run {run}{retried})"


def _applied_tables(
    plan_dir: Path, failed: set[str]
) -> tuple[dict[str, ManifestTable], ManifestMetadata | None]:
    """The plan's manifest.json tables that no failed node belongs to, and its metadata."""
    path = plan_dir / MANIFEST_FILE
    try:
        raw = _read_bytes(path)
        planned = None if raw is None else parse_compiled(
            raw, what=path.name, where=str(path), error=MaintainerError,
            hint="the plan directory's manifest.json is written by `maintainer plan`: plan again",
        )  # fmt: skip
    except MaintainerError as exc:
        log.warning(f"{exc}; the last applied state is not updated", extra=fields(event="state_not_kept"))
        return {}, None
    if planned is None:
        return {}, None
    tables = {name: table for name, table in planned.tables.items() if name not in failed}
    return tables, planned.metadata
