"""Is a metadata table one maintainer can keep in sync (``metadata_table: sync``)? Checked when
planning and again by apply before a node's first write."""

from __future__ import annotations

from collections.abc import Collection

from maintainer.errors import CorruptFileError, MaintainerError
from maintainer.hudi.metadata.partitions import FILES, MetadataPartitionKind
from maintainer.hudi.metadata.sync import sync_status
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.table.state import TableState

SYNC_FROM_VERSION = 8


def open_fit_for_sync(table: TableState, read: Collection[str] = (FILES,)) -> MetadataTable:
    """The metadata table, checked fit for sync; a MaintainerError says why not. Only the
    partitions in ``read`` are listed, and every block of them is read, so a corrupt block is
    found before anything is written (a CorruptFileError naming the file)."""
    version = table.snapshot.config.version
    if version < SYNC_FROM_VERSION:
        raise MaintainerError(
            f"`metadata_table: sync` needs table version {SYNC_FROM_VERSION} or 9 (this table is "
            f"version {version}); set `metadata_table: drop` to remove the metadata table first"
        )
    mdt = open_metadata_table(table, listed=read)
    if mdt is None:
        raise MaintainerError(
            "hoodie.properties lists metadata partitions but .hoodie/metadata has no table; set "
            "`metadata_table: drop` to clear the listing (the next Hudi writer rebuilds it)"
        )
    _check_fit(mdt, table)
    for name in read:
        if mdt.partition(name) is not None:
            _check_readable(mdt, name)
    return mdt


def _check_readable(mdt: MetadataTable, name: str) -> None:
    """Read partition ``name`` (``files`` whole, as planning lists from it; the others block by
    block, their records' values not decoded), so that a damaged file fails here, naming it."""
    try:
        if name == FILES:
            mdt.read_partition(name)
        else:
            mdt.verify_partition(name)
    except CorruptFileError as exc:
        raise CorruptFileError(
            f"the metadata table's {name} partition cannot be read: {exc.message}",
            where=exc.where,
            hint=exc.hint
            or "nothing was written; set `metadata_table: drop` for this table to remove the "
            "metadata table (the next Hudi writer rebuilds it), or repair it with Hudi",
        ) from exc


def _check_fit(mdt: MetadataTable, table: TableState) -> None:
    expression = [p.name for p in mdt.partitions if p.kind is MetadataPartitionKind.EXPRESSION_INDEX]
    if expression:
        raise MaintainerError(
            f"the metadata table has an expression index ({', '.join(expression)}), which maintainer "
            "cannot update until it evaluates expressions; leave this table to Hudi's own services "
            "or set `metadata_table: drop`"
        )
    if mdt.inflight_partitions:
        raise MaintainerError(
            f"Hudi is building metadata partitions ({', '.join(mdt.inflight_partitions)}); plan "
            "again once its indexer has finished"
        )
    problems = sync_status(table.snapshot.timeline, mdt.state.snapshot.timeline).problems()
    if problems:
        raise MaintainerError(
            "the metadata table is not in step with the table: " + "; ".join(problems) + ". A Hudi "
            "writer repairs it on its next write (it rolls failed metadata writes back), or set "
            "`metadata_table: drop`"
        )
