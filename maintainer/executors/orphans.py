"""Remove orphan files: delete them, or move them into the table's quarantine, and move a
quarantined batch back.

No instant is written: the files belong to no instant and no reader looks at them (Hudi's
``HoodieRepairTool`` removes dangling files the same way). A quarantine is a folder under the
table's ``.hoodie/`` (``.hoodie/.quarantine``), a batch per apply (``<UTC time>-<plan id>-<random>``):
its ``batch.json`` lists every file (table-relative path, size) and is written before the first
move, and the files sit under ``files/`` at their table-relative paths. A move cut short leaves
a file in its place or in the batch (or, on object stores, in both with the same bytes), so a
restore of the batch, or the next apply, finishes the job.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from maintainer.errors import CorruptFileError, MaintainerError, StorageError
from maintainer.executors.faults import Fault, no_fault
from maintainer.storage import Storage

BATCH_FILE = "batch.json"
FILES_FOLDER = "files"
BATCH_FORMAT = 1


@dataclass(frozen=True, slots=True)
class OrphanToRemove:
    path: str
    """Table-relative."""
    size: int


@dataclass(frozen=True)
class Removal:
    """What removing orphans did: removed now, already gone, refused (with why)."""

    removed: tuple[OrphanToRemove, ...] = ()
    gone: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    batch: str | None = None
    """The quarantine batch's table-relative folder (None: deleted)."""

    @property
    def bytes(self) -> int:
        return sum(o.size for o in self.removed)


def batch_name(now: datetime, plan_id: str) -> str:
    """``20261128T101500Z-3fab58c18d0e-1a2b3c``: sorts by time, names the plan, and is new for
    every apply (the same plan applied again after a crash gets its own batch)."""
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{plan_id[:12] or 'adhoc'}-{uuid.uuid4().hex[:6]}"


def delete_orphans(storage: Storage, files: Sequence[OrphanToRemove]) -> Removal:
    by_path = {f.path: f for f in files}
    done = storage.delete_many(by_path)
    return Removal(tuple(by_path[p] for p in done.deleted), tuple(done.gone), tuple(done.failed))


def quarantine_orphans(
    storage: Storage, files: Sequence[OrphanToRemove], batch: str, fault: Fault = no_fault
) -> Removal:
    """Move ``files`` into the batch folder ``batch`` (table-relative), its ``batch.json`` first."""
    record = {"format": BATCH_FORMAT, "files": [{"path": f.path, "size": f.size} for f in files]}
    storage.write_if_absent(f"{batch}/{BATCH_FILE}", json.dumps(record, indent=1).encode())
    fault("after_batch_record")
    removed: list[OrphanToRemove] = []
    gone: list[str] = []
    failed: list[tuple[str, str]] = []
    for orphan in files:
        try:
            storage.move_if_absent(orphan.path, f"{batch}/{FILES_FOLDER}/{orphan.path}")
        except StorageError as exc:
            if storage.stat(orphan.path) is None:
                gone.append(orphan.path)
            else:
                failed.append((orphan.path, str(exc)))
            continue
        removed.append(orphan)
        fault("after_move")
    return Removal(tuple(removed), tuple(gone), tuple(failed), batch)


# -- batches ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuarantineBatch:
    folder: str
    """Table-relative (``.hoodie/.quarantine/20261128T101500Z-3fab58c18d0e``)."""
    files: tuple[OrphanToRemove, ...]
    present: tuple[str, ...]
    """The listed files the batch holds now."""

    @property
    def name(self) -> str:
        return self.folder.rpartition("/")[2]

    @property
    def bytes(self) -> int:
        held = set(self.present)
        return sum(f.size for f in self.files if f.path in held)


def read_batch(storage: Storage, folder: str) -> QuarantineBatch:
    where = storage.uri(f"{folder}/{BATCH_FILE}")
    try:
        record = json.loads(storage.read_bytes(f"{folder}/{BATCH_FILE}"))
        files = tuple(OrphanToRemove(str(f["path"]), int(f["size"])) for f in record["files"])
        if record.get("format") != BATCH_FORMAT:
            raise ValueError(f"format {record.get('format')!r}, expected {BATCH_FORMAT}")
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFileError(
            f"the quarantine batch record {where} is unreadable: {exc}",
            hint="restore its files by hand from the batch's files/ folder, or delete the batch",
        ) from exc
    prefix = f"{folder}/{FILES_FOLDER}/"
    held = {
        info.path[len(prefix) :] for info in storage.list_recursive(prefix.rstrip("/")) if not info.is_dir
    }
    return QuarantineBatch(folder, files, tuple(f.path for f in files if f.path in held))


def list_batches(storage: Storage, quarantine: str) -> list[QuarantineBatch]:
    """The batches of the quarantine folder, oldest first."""
    folders = [info.path for info in storage.list_dir(quarantine) if info.is_dir]
    return [
        read_batch(storage, folder) for folder in sorted(folders) if storage.exists(f"{folder}/{BATCH_FILE}")
    ]


@dataclass(frozen=True)
class Restore:
    restored: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    emptied: bool = False
    """The batch held nothing more and was removed."""


def restore_batch(storage: Storage, batch: QuarantineBatch, fault: Fault = no_fault) -> Restore:
    """Move the batch's files back to their places; a place taken since is left alone (the
    file stays in the batch). The batch goes once nothing is left in it."""
    restored: list[str] = []
    refused: list[tuple[str, str]] = []
    for path in batch.present:
        held = f"{batch.folder}/{FILES_FOLDER}/{path}"
        if storage.stat(path) is not None:
            if storage.read_bytes(path) != storage.read_bytes(held):
                refused.append((path, f"{storage.uri(path)} exists again: the quarantined copy is kept"))
                continue
            storage.delete(held)  # a move cut short left both, with the same bytes
            restored.append(path)
            continue
        try:
            storage.move_if_absent(held, path)
        except MaintainerError as exc:
            refused.append((path, str(exc)))
            continue
        restored.append(path)
        fault("after_restore")
    emptied = not refused
    if emptied:
        storage.delete_dir(batch.folder)
    return Restore(tuple(restored), tuple(refused), emptied)
