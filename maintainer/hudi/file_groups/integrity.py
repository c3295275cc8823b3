"""Is the table intact enough to maintain? One check shared by planning and apply.

Maintenance trusts the timeline and the data files: a service that reads a truncated commit as
"no files", a cut log file as "one corrupt block, skipped", or a zero-byte base file as empty
deletes or rewrites rows for good. So before any planner or executor relies on a table, every
instant file it may read is decoded completely, and every data file a completed commit recorded
is checked against the size its write stat says (``fileSizeInBytes``): a base file must have
exactly that size; a log file at least the size after its last committed append (bytes beyond it
are a crashed append, which Hudi's reader skips, and so may we). Sizes come from the listing
already made, so the check adds no I/O per data file (a names-only listing stats just the files
the commits recorded); instant files are read once each.

Base files the compaction is about to read are checked further (Parquet magic at both ends, a
footer that fits in the file): :func:`verify_parquet_footers`, two small reads per file.

Problems are typed :class:`Finding` s; :class:`CorruptTableError` carries them all, so that one
message names every damaged file, what is wrong with it and what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.errors import CorruptFileError, MaintainerError
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import COMMIT_ACTIONS, Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline, TimelineEntry, read_instant_file
from maintainer.hudi.logformat.model import LogBlock
from maintainer.hudi.logformat.reader import iter_log_blocks
from maintainer.hudi.payloads.commit_sizes import CommittedFile, decode_committed_files
from maintainer.hudi.table.snapshot import TableSnapshot
from maintainer.storage import Storage
from maintainer.storage.listing import Listings

PARQUET_MAGIC = b"PAR1"
PARQUET_TAIL = 8
"""A Parquet file ends with the footer's length (4 bytes, little endian) and the magic."""
MIN_PARQUET_SIZE = len(PARQUET_MAGIC) + PARQUET_TAIL

_RESTORE_HINT = "restore the file from a backup of the table"


@dataclass(frozen=True, slots=True)
class Finding:
    """One damaged file: where (relative to the table's base path), what is wrong, what to do."""

    path: str
    problem: str
    hint: str

    def describe(self) -> str:
        return f"{self.path}: {self.problem} ({self.hint})"


class CorruptTableError(CorruptFileError):
    """The table has damaged files: it is not maintained until they are repaired."""

    def __init__(self, findings: Iterable[Finding], where: str) -> None:
        self.findings = tuple(findings)
        count = len(self.findings)
        lines = "; ".join(f.describe() for f in self.findings)
        super().__init__(
            f"{count} damaged file(s): {lines}",
            where=where,
            hint="maintainer does not change a damaged table: repair the files as said, then plan again",
        )


# -- instant files ---------------------------------------------------------------------------

Decoder = Callable[[bytes, str], Any]

_COMPLETED_DECODERS: Mapping[Action, Decoder] = {
    Action.COMMIT: decode_committed_files,
    Action.DELTA_COMMIT: decode_committed_files,
    Action.REPLACE_COMMIT: decode_committed_files,
    Action.CLEAN: payloads.decode_clean_metadata,
    Action.ROLLBACK: payloads.decode_rollback_metadata,
    Action.SAVEPOINT: payloads.decode_savepoint_metadata,
}
"""The completed file of each action a service may read (restore, indexing and schema instants
are read by none); commits only as far as the files they wrote and their sizes (decoded
completely all the same, see :mod:`maintainer.hudi.payloads.commit_sizes`)."""

_PENDING_STATE_DECODERS: Mapping[tuple[Action, State], Decoder] = {
    (Action.COMMIT, State.REQUESTED): decode_committed_files,
    (Action.COMMIT, State.INFLIGHT): decode_committed_files,
    (Action.DELTA_COMMIT, State.REQUESTED): decode_committed_files,
    (Action.DELTA_COMMIT, State.INFLIGHT): decode_committed_files,
    (Action.REPLACE_COMMIT, State.REQUESTED): payloads.decode_requested_replace_metadata,
    (Action.REPLACE_COMMIT, State.INFLIGHT): decode_committed_files,
    (Action.CLUSTERING, State.REQUESTED): payloads.decode_requested_replace_metadata,
    (Action.CLUSTERING, State.INFLIGHT): payloads.decode_requested_replace_metadata,
    (Action.COMPACTION, State.REQUESTED): payloads.decode_compaction_plan,
    (Action.COMPACTION, State.INFLIGHT): payloads.decode_compaction_plan,
    (Action.LOG_COMPACTION, State.REQUESTED): payloads.decode_compaction_plan,
    (Action.LOG_COMPACTION, State.INFLIGHT): payloads.decode_compaction_plan,
    (Action.CLEAN, State.REQUESTED): payloads.decode_cleaner_plan,
    (Action.CLEAN, State.INFLIGHT): payloads.decode_cleaner_plan,
    (Action.ROLLBACK, State.REQUESTED): payloads.decode_rollback_plan,
    (Action.ROLLBACK, State.INFLIGHT): payloads.decode_rollback_plan,
    (Action.SAVEPOINT, State.INFLIGHT): payloads.decode_savepoint_metadata,
}
"""The requested and inflight files of each action: archival moves them with the completed file
(so it reads them), finishing a pending service reads its plan."""

_PENDING_READ = frozenset(
    {Action.CLEAN, Action.ROLLBACK, Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING}
)
"""Pending instants whose requested plan a service reads (finishes, or respects); a pending
write's files are left alone: a crashed writer's may be partial, and its rollback reads none."""


@dataclass(frozen=True, slots=True)
class InstantFile:
    instant: Instant
    state: State
    decode: Decoder


def _state_files(entry: TimelineEntry) -> Iterator[InstantFile]:
    instant = entry.instant
    for state in entry.state_files:
        if state is State.COMPLETED:
            decode = _COMPLETED_DECODERS.get(instant.completed_action)
        elif instant.is_completed or (state is State.REQUESTED and instant.action in _PENDING_READ):
            decode = _PENDING_STATE_DECODERS.get((instant.action, state))
        else:
            decode = None
        if decode is not None:
            yield InstantFile(instant, state, decode)


def instant_files_to_decode(snapshot: TableSnapshot) -> Iterator[InstantFile]:
    """Every instant file a planner or executor may decode: each state file of a completed
    instant (what archival moves), the requested plan of a pending table service, clean or
    rollback. Only files that exist (a savepoint has no requested file, for one)."""
    for entry in snapshot.timeline.entries:
        yield from _state_files(entry)


def _undecodable(exc: MaintainerError, instant: Instant) -> str:
    return f"the {instant.action.value} instant {instant.timestamp} does not decode: {exc.message}"


def _instant_hint(instant: Instant) -> str:
    if instant.is_completed and instant.action in COMMIT_ACTIONS:
        return (
            f"{_RESTORE_HINT}; Hudi cannot read it either (roll back or restore {instant.timestamp} "
            "with Hudi only once its data files are accounted for)"
        )
    return _RESTORE_HINT


CommitFiles = Mapping[str, list[CommittedFile]]
"""Instant time of a completed commit -> the files it wrote, with their sizes."""

INTERRUPTIBLE = frozenset({Action.CLEAN, Action.ROLLBACK, Action.COMPACTION, Action.SAVEPOINT})
"""The table services whose completion maintainer writes (a compaction completes as a commit)."""


@dataclass(frozen=True, slots=True)
class InterruptedCompletion:
    """A table service's completed file that does not decode while its inflight file is there:
    the write of the completion was cut short (a crash mid-write on a store without atomic
    writes). It is read as not completed (inflight), and apply, under the table lock, deletes
    the cut-short file and completes the instant again."""

    instant: Instant
    path: str
    """The completed file (relative to the table's base path)."""
    problem: str

    def describe(self) -> str:
        return (
            f"the completion of {self.instant.action.value} {self.instant.timestamp} was cut short "
            f"({self.path}: {self.problem}): read as inflight; the next apply completes it again"
        )


def is_interruptible(entry: TimelineEntry) -> bool:
    """A completed table-service instant whose inflight file is still there: its completed file,
    if it does not decode, is an interrupted completion (anything else undecodable is damage)."""
    return (
        entry.instant.is_completed
        and entry.instant.action in INTERRUPTIBLE
        and State.INFLIGHT in entry.state_files
        and State.COMPLETED in entry.state_files
    )


EMPTY_IS_CUT_SHORT = frozenset({Action.CLEAN, Action.ROLLBACK, Action.SAVEPOINT})
"""Services whose completed file always holds metadata (Hudi's and maintainer's): one empty
beside its inflight file was created but never written. (An empty compaction commit is not:
Hudi reads it as a commit without write stats, and later cleans may have relied on it.)"""


def completion_problem(entry: TimelineEntry, data: bytes, where: str) -> str | None:
    """Why the completed file (``data``) of an interruptible entry shows a write cut short
    (None: it is whole)."""
    if not data.strip() and entry.instant.action in EMPTY_IS_CUT_SHORT:
        return "it is empty, but every completed file of this action holds its metadata"
    try:
        _COMPLETED_DECODERS[entry.instant.completed_action](data, where)
    except CorruptFileError as exc:
        return exc.message
    return None


def find_interrupted_completions(storage: Storage, timeline: Timeline) -> list[InterruptedCompletion]:
    """Every interrupted completion of the timeline (each candidate's completed file is read)."""
    found = []
    for entry in timeline.entries:
        if not is_interruptible(entry):
            continue
        path = timeline.file_path(entry.instant, State.COMPLETED)
        try:
            data = read_instant_file(storage, path)
        except CorruptFileError:
            continue  # over its cap: damage, which the integrity check reports
        problem = completion_problem(entry, data, storage.uri(path))
        if problem is not None:
            found.append(InterruptedCompletion(entry.instant, path, problem))
    return found


def without_interrupted(timeline: Timeline, interrupted: Iterable[InterruptedCompletion]) -> Timeline:
    """The timeline with each interrupted completion read as inflight."""
    names = {item.path.rpartition("/")[2] for item in interrupted}
    return timeline.without_files(names) if names else timeline


@dataclass(frozen=True, slots=True)
class DecodedInstants:
    """What decoding a timeline's instant files found."""

    commits: CommitFiles
    findings: list[Finding]
    interrupted: list[InterruptedCompletion]
    rollback_logs: frozenset[str] = frozenset()
    """Log files completed rollbacks account for (v6: the command blocks they appended, and the
    failed commit's logs they left in place), as paths relative to the table."""


def decode_instant_files(storage: Storage, snapshot: TableSnapshot) -> DecodedInstants:
    """Decode every instant file a service may read: the files each completed commit wrote,
    findings for the instant files that do not decode, and the interrupted completions (their
    other state files are read as those of a pending instant)."""
    commits: dict[str, list[CommittedFile]] = {}
    findings: list[Finding] = []
    interrupted: list[InterruptedCompletion] = []
    rollback_logs: set[str] = set()
    entries = {(e.timestamp, e.instant.action): e for e in snapshot.timeline.entries}
    for item in instant_files_to_decode(snapshot):
        path = snapshot.timeline.file_path(item.instant, item.state)
        entry = entries[(item.instant.timestamp, item.instant.action)]
        try:
            data = read_instant_file(storage, path)  # capped: a hostile size is a finding
        except CorruptFileError as exc:
            findings.append(Finding(path, _undecodable(exc, item.instant), _instant_hint(item.instant)))
            continue
        if item.state is State.COMPLETED and is_interruptible(entry):
            problem = completion_problem(entry, data, storage.uri(path))
            if problem is not None:
                interrupted.append(InterruptedCompletion(item.instant, path, problem))
                continue
        try:
            decoded = item.decode(data, storage.uri(path))
        except CorruptFileError as exc:
            findings.append(Finding(path, _undecodable(exc, item.instant), _instant_hint(item.instant)))
            continue
        if item.state is State.COMPLETED and item.instant.action in COMMIT_ACTIONS:
            commits[item.instant.timestamp] = decoded
        elif item.state is State.COMPLETED and isinstance(decoded, payloads.RollbackMetadata):
            rollback_logs.update(rolled_back_logs(decoded))
    return DecodedInstants(commits, findings, interrupted, frozenset(rollback_logs))


def rolled_back_logs(metadata: payloads.RollbackMetadata) -> set[str]:
    """The log files a completed rollback accounts for, relative to the table (Hudi records
    them as absolute paths or as names; the partition is the metadata's key)."""
    found: set[str] = set()
    for partition, meta in metadata.partition_metadata.items():
        for path in (*(meta.rollback_log_files or {}), *(meta.log_files_from_failed_commit or {})):
            name = path.rstrip("/").rpartition("/")[2]
            found.add(f"{partition}/{name}" if partition else name)
    return found


# -- data file sizes -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommittedSize:
    """The size a completed commit recorded for a data file (for a log file appended by several
    deltacommits, the largest: the size after the last committed append)."""

    path: str
    size: int
    instant: str
    is_log: bool


def committed_sizes(commits: CommitFiles) -> dict[str, CommittedSize]:
    """Path -> the size its write stats recorded (zero or negative: not recorded)."""
    found: dict[str, CommittedSize] = {}
    for instant, files in sorted(commits.items()):
        for path, size in files:
            earlier = found.get(path)
            if size > 0 and (earlier is None or size >= earlier.size):
                found[path] = CommittedSize(path, size, instant, _is_log(path))
    return found


def _is_log(path: str) -> bool:
    """A log file name (``.{fileId}_{instant}.log.{version}_{token}``), told cheaply: this runs
    once per write stat of the active timeline."""
    name = path.rpartition("/")[2]
    return name.startswith(".") and ".log." in name


def _listed_sizes(listings: Mapping[str, Any], partition: str, names: list[str]) -> dict[str, int | None]:
    """The listed sizes of the files ``names`` of ``partition`` (a names-only listing asks
    storage for just these)."""
    if isinstance(listings, Listings):
        return dict(zip(names, listings.dir_listing(partition).sizes_of(names), strict=True))
    return {info.name: info.size for info in listings[partition]}


def size_findings(listings: Mapping[str, Any], committed: Mapping[str, CommittedSize]) -> list[Finding]:
    """Listed data files whose size contradicts their write stats (files not listed, e.g. cleaned
    or in partitions not read, are not judged)."""
    by_partition: dict[str, list[CommittedSize]] = {}
    for item in committed.values():
        partition = item.path.rpartition("/")[0]
        if partition in listings:
            by_partition.setdefault(partition, []).append(item)
    findings: list[Finding] = []
    for partition, items in sorted(by_partition.items()):
        names = [item.path.rpartition("/")[2] for item in items]
        sizes = _listed_sizes(listings, partition, names)
        for item in sorted(items, key=lambda i: i.path):
            actual = sizes.get(item.path.rpartition("/")[2])
            if actual is None:
                continue
            finding = _size_finding(item, actual)
            if finding is not None:
                findings.append(finding)
    return findings


def _size_finding(item: CommittedSize, actual: int) -> Finding | None:
    if item.is_log and actual < item.size:
        return Finding(
            item.path,
            f"log file is {actual} bytes, but deltacommit {item.instant} committed it at {item.size} "
            "bytes: committed log blocks are missing (damage, not a crashed append)",
            f"restore the file from a backup, or roll back deltacommit {item.instant} with Hudi, "
            "then plan again",
        )
    if not item.is_log and actual != item.size:
        return Finding(
            item.path,
            f"base file is {actual} bytes, but commit {item.instant} recorded {item.size} bytes",
            f"restore the file from a backup, or roll back commit {item.instant} with Hudi, then plan again",
        )
    return None


# -- the check -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inspection:
    """What :func:`inspect_table` found: the damaged files (none: the table may be maintained),
    the committed sizes of its data files (what :func:`log_block_findings` checks against),
    and the interrupted completions (not damage: read as inflight, completed again by apply)."""

    findings: list[Finding]
    committed: dict[str, CommittedSize]
    interrupted: list[InterruptedCompletion]
    referenced: frozenset[str] = frozenset()
    """Every data file the active timeline's completed instants account for (write stats of
    commits, log files of rollbacks), relative to the table, sizes recorded or not."""


def inspect_table(storage: Storage, snapshot: TableSnapshot) -> Inspection:
    """Every problem of the table. A ``hoodie.properties`` read from its backup (an update cut
    short) is none: Hudi reads the backup too, and apply recovers the file first
    (:mod:`maintainer.hudi.config.properties_update`)."""
    decoded = decode_instant_files(storage, snapshot)
    committed = committed_sizes(decoded.commits)
    findings = decoded.findings + size_findings(snapshot.listings, committed)
    written = frozenset(path for files in decoded.commits.values() for path, _ in files)
    referenced = written | decoded.rollback_logs
    return Inspection(findings, committed, decoded.interrupted, referenced)


def verify_table(storage: Storage, snapshot: TableSnapshot) -> Inspection:
    """Raise :class:`CorruptTableError` naming every damaged file; planning and apply call it
    (through :func:`maintainer.hudi.table.state.open_table`) before relying on the table."""
    inspection = inspect_table(storage, snapshot)
    if inspection.findings:
        raise CorruptTableError(inspection.findings, storage.base_uri)
    return inspection


def newest_commit_files(committed: Mapping[str, CommittedSize]) -> dict[str, CommittedSize]:
    """The data files the newest completed commit of the active timeline wrote (or appended)."""
    newest = max((item.instant for item in committed.values()), default=None)
    return {path: item for path, item in committed.items() if item.instant == newest}


def verify_newest_on_storage(storage: Storage, committed: Mapping[str, CommittedSize]) -> None:
    """Raise :class:`CorruptTableError` when a data file of the newest completed commit is not
    on storage at the size it was committed with. For a table listed from its metadata table,
    whose sizes are the committed ones and so never disagree with the commits: the newest
    output (a compaction cut short by a copy, say) is checked against storage itself, one
    listing per partition it wrote."""
    newest = newest_commit_files(committed)
    partitions = sorted({path.rpartition("/")[0] for path in newest})
    if not partitions:
        return
    listings = Listings(storage.list_dirs_columns(partitions))
    findings = size_findings(listings, newest)
    missing = [item for item in newest.values() if not item.is_log and _absent(listings, item.path)]
    findings += [
        Finding(
            item.path,
            f"base file is not on storage, but commit {item.instant} wrote it (the metadata table lists it)",
            f"restore the file from a backup, or roll back commit {item.instant} with Hudi, then plan again",
        )
        for item in missing
    ]
    if findings:
        raise CorruptTableError(findings, storage.base_uri)


def _absent(listings: Listings, path: str) -> bool:
    partition, _, name = path.rpartition("/")
    return name not in listings.dir_listing(partition).names


# -- log files the compaction reads --------------------------------------------------------------


def _block_finding(path: str, committed: CommittedSize, block: LogBlock) -> Finding:
    return Finding(
        path,
        f"corrupt log block at byte {block.offset} ({block.corrupt_reason}), inside the {committed.size} "
        f"bytes deltacommit {committed.instant} committed: damage, not a crashed append (Hudi would skip "
        "its records; maintainer does not compact past them nor clean the file)",
        f"restore the file from a backup, or roll back deltacommit {committed.instant} with Hudi, "
        "then plan again",
    )


def log_block_findings(
    storage: Storage, paths: Iterable[str], committed: Mapping[str, CommittedSize]
) -> list[Finding]:
    """Log files among ``paths`` with a corrupt block that starts inside their committed length.
    A corrupt block after it is what a crashed append leaves: Hudi skips it, and so may we."""
    findings = []
    for path in sorted(set(paths)):
        size = committed.get(path)
        if size is None:
            continue
        for block in iter_log_blocks(storage.read_bytes(path), storage.uri(path)):
            if block.is_corrupt and block.offset < size.size:
                findings.append(_block_finding(path, size, block))
                break
    return findings


# -- base files the compaction reads -----------------------------------------------------------


def parquet_footer_problem(head: bytes, tail: bytes, size: int) -> str | None:
    """Why a file of ``size`` bytes starting with ``head`` and ending with ``tail`` (its last 8
    bytes) is not a complete Parquet file, or None."""
    if size < MIN_PARQUET_SIZE:
        return f"is {size} bytes, too small to be a Parquet file"
    if head[: len(PARQUET_MAGIC)] != PARQUET_MAGIC:
        return "does not start with the Parquet magic PAR1"
    if tail[-len(PARQUET_MAGIC) :] != PARQUET_MAGIC:
        return "does not end with the Parquet magic PAR1 (cut short?)"
    footer = int.from_bytes(tail[: PARQUET_TAIL - len(PARQUET_MAGIC)], "little")
    if footer <= 0 or footer + MIN_PARQUET_SIZE > size:
        return f"has a footer length of {footer} bytes that does not fit in its {size} bytes"
    return None


def footer_findings(storage: Storage, paths: Iterable[str]) -> list[Finding]:
    """Parquet base files among ``paths`` (relative to the table) that are not complete."""
    findings = []
    for path in sorted(set(paths)):
        if not path.endswith(".parquet"):
            continue
        head, tail, size = storage.read_ends(path, len(PARQUET_MAGIC), PARQUET_TAIL)
        problem = parquet_footer_problem(head, tail, size)
        if problem is not None:
            findings.append(
                Finding(
                    path,
                    f"base file {problem}",
                    "restore the file from a backup, or roll back the commit that wrote it with Hudi, "
                    "then plan again",
                )
            )
    return findings


def verify_compaction_reads(
    storage: Storage,
    base_files: Iterable[str],
    log_files: Iterable[str] = (),
    committed: Mapping[str, CommittedSize] | None = None,
) -> None:
    """Raise :class:`CorruptTableError` when a base file the compaction will read is not a
    complete Parquet file (a compaction would fail half-way, or read it as empty), or, given the
    committed sizes, a log file it reads has a corrupt block inside its committed length."""
    findings = footer_findings(storage, base_files)
    if committed is not None:
        findings += log_block_findings(storage, log_files, committed)
    if findings:
        raise CorruptTableError(findings, storage.base_uri)
