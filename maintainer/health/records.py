"""The records ``maintainer status`` reports, frozen and typed; ``status --format json`` is their
JSON form (schema: ``schemas/status.v1.json``, generated from these records)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from pydantic import ConfigDict

STATUS_SCHEMA_VERSION = "https://maintainer.dev/schemas/status/v1.json"


@dataclass(frozen=True, slots=True)
class Record:
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", json_schema_serialization_defaults_required=True
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class LastRun(Record):
    """The last completed instant of one table service."""

    service: Literal["clean", "compaction", "clustering", "rollback", "metadata_compaction"]
    instant: str | None
    """None: none on the active timeline."""
    age_seconds: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingInstant(Record):
    instant: str
    action: str
    state: str
    age_seconds: int
    stuck: bool
    """Older than the table's max_pending_age (or the default limit)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogBacklog(Record):
    """Log files of the latest file slices (merge-on-read; zero for copy-on-write)."""

    slices: int
    slices_with_logs: int
    log_files: int
    log_bytes: int
    max_log_files_per_slice: int
    p50_log_files_per_slice: float
    max_log_bytes_per_slice: int
    p50_log_bytes_per_slice: float
    slices_over_limit: int
    """Slices with more log files than max_log_files_per_slice (the objective, or the default)."""
    read_amplification: float | None
    """Log bytes over base bytes of the latest slices (None: copy-on-write, or no base bytes)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SmallFiles(Record):
    limit_bytes: int
    base_files: int
    small_files: int
    small_bytes: int
    share: float
    """small_files / base_files (0 without base files)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Versions(Record):
    """File versions kept besides the latest slice of each file group."""

    retained_versions: int
    retained_bytes: int
    clean_would_free_bytes: int | None
    """What a clean planned now deletes (None: clean not selected, or not planned)."""
    clean_would_delete_files: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TimelineFigures(Record):
    active_instants: int
    keep_max_commits: int | None
    """The archive service's limit (None: archive not active for the table)."""
    oldest_active_instant: str | None
    oldest_active_age_seconds: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataFigures(Record):
    partitions: tuple[str, ...]
    deltacommits_since_compaction: int
    last_compaction: str | None
    in_sync: bool
    """The metadata table is in step with the table's timeline (as ``metadata_table: sync``
    requires: every completed instant it must have, none it must not)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanFigures(Record):
    """Files no instant accounts for, older than 7 days (``maintainer inspect`` lists them)."""

    files: int
    bytes: int
    left_alone: int
    """Files not judged: of pending instants, older than the active timeline, or young."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WhyNot(Record):
    """A selected service's plan for the table, as ``maintainer plan`` would make it."""

    service: str
    status: Literal["changes", "no_op", "blocked"]
    reason: str
    """The planner's first reason (the node's own words)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Objective(Record):
    name: str
    limit: float
    value: float
    unit: Literal["count", "seconds", "share"]
    state: Literal["ok", "overdue"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScorePart(Record):
    name: str
    points: float
    max_points: float
    value: float
    limit: float
    declared: bool
    """The limit is the table's objective (else the default)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HealthPoint(Record):
    """The figures of one table at one moment (none when it could not be read)."""

    score: float
    max_log_files_per_slice: int
    log_files: int
    small_files: int
    small_file_share: float
    retained_versions: int
    retained_bytes: int
    active_instants: int
    pending: int
    stuck: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry(Record):
    """One apply on one table: its figures before and after, and the bytes its nodes deleted."""

    run: str
    started_at: str
    finished_at: str
    plan_id: str
    before: HealthPoint | None
    after: HealthPoint | None
    bytes_freed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableHealth(Record):
    table: str
    path: str
    owner: str | None
    tags: tuple[str, ...]
    table_type: str
    version: int
    error: str | None
    """Why the table could not be read (its figures are then empty)."""
    score: float
    score_parts: tuple[ScorePart, ...]
    objectives: tuple[Objective, ...]
    last_runs: tuple[LastRun, ...]
    pending: tuple[PendingInstant, ...]
    log_backlog: LogBacklog | None
    small_files: SmallFiles | None
    versions: Versions | None
    timeline: TimelineFigures | None
    metadata_table: MetadataFigures | None
    why_not: tuple[WhyNot, ...]
    orphans: OrphanFigures | None = None
    """None: not judged (the table's instants were not read, or it could not be read)."""
    history: tuple[HistoryEntry, ...] = ()
    """What each recorded apply changed, oldest first (``status --history``; empty without it)."""

    @property
    def overdue(self) -> tuple[Objective, ...]:
        return tuple(o for o in self.objectives if o.state == "overdue")


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnerHealth(Record):
    """The tables of one owner (``owner:`` in the manifests; "" for tables without one)."""

    owner: str
    tables: int
    overdue: int
    unreadable: int
    lowest_score: float
    mean_score: float


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetHealth(Record):
    maintainer_schema_version: str
    project: str
    target: str
    generated_at: str
    tables: tuple[TableHealth, ...]
    """Worst first: overdue objectives, then lowest score, then name."""
    owners: tuple[OwnerHealth, ...] = ()
    """Per owner, worst first (most overdue, then lowest score)."""
    uncovered: tuple[str, ...] = ()
    """Hudi tables found under ``status --discover`` prefixes that no manifest covers."""
