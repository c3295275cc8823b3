"""Drop a table's metadata table the way Hudi's ``delete_metadata_table`` does.

First ``hoodie.properties`` forgets the metadata partitions (so no reader or writer trusts a
metadata table from then on), through Hudi's backup protocol
(:mod:`maintainer.hudi.config.properties_update`: write ``hoodie.properties.backup``, replace
``hoodie.properties`` in one atomic step, checksum included, verify it, delete the backup).
Then the ``.hoodie/metadata`` folder goes. A writer with the metadata table enabled builds a
fresh one from the file system.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import datetime, timezone
from typing import TypeVar

from pydantic.json_schema import SkipJsonSchema

from maintainer.artifact.model import DropMetadataTable, SyncMetadataTable
from maintainer.clock import utc_now
from maintainer.errors import ApplyError
from maintainer.hudi.config.properties import (
    PROPERTIES_FILE,
    format_java_properties,
    parse_java_properties,
    read_properties_file,
    table_checksum,
)
from maintainer.hudi.config.properties_update import modify_properties, recover_properties
from maintainer.hudi.metadata.fitness import open_fit_for_sync
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.base import ApplyEffects, NodeContext
from maintainer.storage import Storage

METADATA_PARTITION_KEYS = ("hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight")


def properties_without_metadata_table(raw: dict[str, str]) -> dict[str, str]:
    """The properties with every metadata partition (completed and inflight) cleared."""
    updated = dict(raw)
    for key in METADATA_PARTITION_KEYS:
        updated[key] = ""
    if "hoodie.table.checksum" in updated:
        checksum = table_checksum(
            updated.get("hoodie.database.name", ""), updated.get("hoodie.table.name", "")
        )
        updated["hoodie.table.checksum"] = str(checksum)
    return updated


def _header(now: datetime) -> tuple[str, ...]:
    moment = now.astimezone(timezone.utc)
    return (
        f"Updated at {moment.isoformat(timespec='milliseconds').replace('+00:00', 'Z')}",
        moment.strftime("%a %b %d %H:%M:%S UTC %Y"),
    )


def _read_properties(storage: Storage) -> dict[str, str]:
    data = read_properties_file(storage)
    return parse_java_properties(data.decode("latin-1"), storage.uri(PROPERTIES_FILE))


def _rendered(now: datetime) -> Callable[[Mapping[str, str]], bytes]:
    return lambda values: format_java_properties(values, _header(now)).encode("latin-1")


def rewrite_properties(storage: Storage, updated: dict[str, str], now: datetime) -> None:
    """Replace the properties by ``updated`` through Hudi's backup protocol
    (:func:`maintainer.hudi.config.properties_update.modify_properties`)."""
    modify_properties(storage, lambda _current: updated, _rendered(now))


def drop_metadata_table(storage: Storage, now: datetime | None = None) -> list[str]:
    """Remove the metadata table; returns the metadata partitions it had."""
    recover_properties(storage)
    raw = _read_properties(storage)
    partitions = [
        part.strip()
        for key in METADATA_PARTITION_KEYS
        for part in raw.get(key, "").split(",")
        if part.strip()
    ]
    if partitions:
        modify_properties(storage, properties_without_metadata_table, _rendered(now or utc_now()))
    storage.delete_dir(METADATA_TABLE_DIR)
    return partitions


class MetadataTableDropped(ApplyEffects):
    """The effect any node that changes the table may have first (``metadata_table: drop``);
    the effects of such a service extend it."""

    metadata_table_dropped: tuple[str, ...] | SkipJsonSchema[None] = None
    """The metadata partitions the table had when the node dropped its metadata table (empty:
    a folder only); absent when it did not."""


Effects = TypeVar("Effects", bound=MetadataTableDropped)


def with_dropped(effects: Effects, dropped: tuple[str, ...] | None) -> Effects:
    """``effects`` with the metadata table the node dropped (``dropped``: its partitions;
    None: not dropped)."""
    return (
        effects if dropped is None else effects.merged(MetadataTableDropped(metadata_table_dropped=dropped))
    )


def drop_if_approved(
    ctx: NodeContext,
    table: TableState,
    doing: str,
    updates: Collection[str] = (FILES,),
) -> tuple[str, ...] | None:
    """Before a node changes the table: drop its metadata table when the node's first action
    says so (its partitions: dropped, open the table again; None: not dropped); an unexpected
    metadata table fails the node (``doing`` the change without updating it would leave it
    stale). With ``metadata_table: sync``, the metadata partitions in ``updates`` (those the
    node's sync writes) are read whole first, so a damaged one fails the node before its first
    write."""
    mdt = table.snapshot.metadata_table
    dropping = bool(ctx.node.actions_of(DropMetadataTable))
    if not (mdt.partitions or mdt.inflight_partitions or (dropping and mdt.exists)):
        return None
    if ctx.node.actions_of(SyncMetadataTable):
        open_fit_for_sync(table, updates)  # still fit (in step, readable) before the first write
        return None  # metadata_table: sync: the node keeps it in step
    if not dropping:
        partitions = ", ".join(mdt.partitions + mdt.inflight_partitions) or "folder only"
        raise ApplyError(
            f"the table has a metadata table ({partitions}) that the plan does not drop",
            where=ctx.table.path,
            hint=f"{doing} without updating it would break readers: make the plan again (with "
            "`metadata_table: sync`, the default for table versions 8 and 9, or `drop`)",
        )
    return tuple(drop_metadata_table(table.storage, ctx.clock()))


def open_for_apply(
    ctx: NodeContext, doing: str = "changing the table"
) -> tuple[TableState, tuple[str, ...] | None]:
    """The table as it is now, its metadata table dropped first when the plan says so, and
    the partitions dropped (None: not dropped; see :func:`drop_if_approved`)."""
    table = open_table(ctx.table.path, ctx.storage_options)
    dropped = drop_if_approved(ctx, table, doing)
    if dropped is not None:
        return open_table(ctx.table.path, ctx.storage_options), dropped
    return table, None
