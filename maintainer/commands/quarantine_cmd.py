"""``maintainer quarantine``: the orphan files an apply moved into a table's quarantine
(``orphan_files: {quarantine: .quarantine}``), listed, and moved back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import click

from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.errors import ApplyError
from maintainer.executors.orphans import QuarantineBatch, list_batches, restore_batch
from maintainer.project.models import TableSpec
from maintainer.runner.lock import TableLock
from maintainer.services.orphans.settings import OrphanFilesSpec
from maintainer.storage import Storage
from maintainer.units import count, human_bytes


@dataclass(frozen=True)
class TableQuarantine:
    spec: TableSpec
    storage: Storage
    folder: str


def _quarantines(loaded: LoadedProject) -> list[TableQuarantine]:
    """The selected tables whose ``orphan_files`` block names a quarantine."""
    options = dict(loaded.project.target.settings.storage_options)
    found = []
    for name in sorted({node.table for node in loaded.selected}):
        spec = loaded.project.table(name)
        settings = spec.settings_of(OrphanFilesSpec)
        folder = settings.quarantine_folder() if settings is not None else None
        if folder is not None:
            found.append(TableQuarantine(spec, Storage(spec.path, options), folder))
    return found


def _batch_row(table: str, batch: QuarantineBatch) -> dict[str, Any]:
    return {
        "table": table,
        "batch": batch.name,
        "folder": batch.folder,
        "files": len(batch.files),
        "held": len(batch.present),
        "bytes": batch.bytes,
    }


@click.group("quarantine")
def command() -> None:
    """List the orphan files apply moved into a table's quarantine, and move them back.

    A table whose manifest says ``orphan_files: {quarantine: .quarantine}`` has its orphan files
    moved into ``.hoodie/.quarantine/<batch>/`` instead of deleted, a batch per apply.

    \b
    Examples:
      maintainer quarantine list
      maintainer quarantine restore --select trips --batch 20261128T101500Z-3fab58c18d0e
    """


@command.command("list")
@common_options()
@click.option("--output", "-o", type=click.Choice(["text", "json"]), default="text", show_default=True)
def list_command(options: CommonOptions, output: str) -> int:
    """The quarantine batches of the selected tables: files moved, held now, bytes."""
    rows = [
        _batch_row(q.spec.name, batch)
        for q in _quarantines(load_from_options(options))
        for batch in list_batches(q.storage, q.folder)
    ]
    if output == "json":
        stdout.out(json.dumps(rows, indent=2), highlight=False)
        return 0
    if not rows:
        stdout.out("no quarantined files in the selected tables", highlight=False)
    for row in rows:
        held = count(row["held"], "file")
        stdout.out(
            f"{row['table']}  {row['batch']}  {held} held ({human_bytes(row['bytes'])})", highlight=False
        )
    return 0


@command.command("restore")
@common_options()
@click.option("--batch", "batches", multiple=True, help="Only this batch (repeatable); default: every batch.")
def restore_command(options: CommonOptions, batches: tuple[str, ...]) -> int:
    """Move quarantined files back to their places, under the table's lock. A place taken
    since is left alone (the file stays quarantined, exit 1); a restored batch is removed.

    Restored files are orphans again: the next plan lists them (if old enough) unless an
    instant accounts for them. Take them out of the manifest's reach first if they must stay.
    """
    refused = 0
    quarantines = _quarantines(load_from_options(options))
    if not quarantines:
        raise ApplyError(
            "none of the selected tables has a quarantine",
            hint="select a table whose orphan_files block says quarantine: <folder>",
        )
    for quarantine in quarantines:
        refused += _restore_table(quarantine, set(batches))
    return 1 if refused else 0


def _restore_table(quarantine: TableQuarantine, wanted: set[str]) -> int:
    refused = 0
    with TableLock(quarantine.storage, "quarantine-restore"):
        for batch in list_batches(quarantine.storage, quarantine.folder):
            if wanted and batch.name not in wanted:
                continue
            done = restore_batch(quarantine.storage, batch)
            name = quarantine.spec.name
            stdout.out(
                f"{name}: {count(len(done.restored), 'file')} restored from {batch.name}", highlight=False
            )
            for path, why in done.refused:
                stdout.out(f"{name}: {path} not restored: {why}", highlight=False)
            refused += len(done.refused)
    return refused
