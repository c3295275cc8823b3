"""The service catalog: which table services maintainer knows, as plain data.

The bottom layer of the package (it imports nothing of maintainer), so the project model, the
graph, planning, rendering and the runner all derive their lists from this one tuple: the
manifest blocks, the order of nodes inside a table, which services only run on merge-on-read
tables, the labels of a plan's actions and the Hudi actions whose instants record a plan id.
The behaviour of each service (plan, payloads, projection, validation, apply) is its
``TableService`` in ``maintainer.services``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ActionLabel:
    """How a plan's summary counts one kind of action: ``1 file to delete``, ``2 files to delete``."""

    kind: str
    one: str
    many: str
    rank: int
    """Place of the kind in a plan's summary line (lowest first)."""


@dataclass(frozen=True, slots=True)
class ServiceDescriptor:
    """One service: a kind of node of the graph (one per table that has its manifest block)."""

    name: str
    """The graph's service name (``<table>.<name>`` is the node)."""
    block: str
    """The manifest block that turns it on (several services may share one)."""
    actions: tuple[ActionLabel, ...]
    """The kinds of action its nodes plan, with their labels."""
    mor_only: bool = False
    """Runs on merge-on-read tables only (``plan`` drops it, keeping the order, for COW)."""
    ledger_actions: tuple[str, ...] = ()
    """Hudi actions (``Action`` values) whose instants carry the plan id of the node's apply."""


DROP_METADATA_TABLE = ActionLabel(
    "drop_metadata_table", "metadata table to drop", "metadata tables to drop", 3
)
"""The action any table's first node may carry (``metadata_table: drop``)."""

SYNC_METADATA_TABLE = ActionLabel(
    "sync_metadata_table", "metadata table update", "metadata table updates", 13
)
"""The action a node that changes the table carries last (``metadata_table: sync``)."""

SERVICES: tuple[ServiceDescriptor, ...] = (
    ServiceDescriptor("rollback", "rollback", (
        ActionLabel("rollback", "failed write to roll back", "failed writes to roll back", 4),
        ActionLabel("finish_pending_rollback", "pending rollback to finish",
                    "pending rollbacks to finish", 6),
        ActionLabel("remove_rolled_back_instant", "rolled-back instant to remove",
                    "rolled-back instants to remove", 7),
    )),
    ServiceDescriptor("compaction", "compaction", (
        ActionLabel("execute_pending_compaction", "pending compaction to run",
                    "pending compactions to run", 8),
        ActionLabel("compact_slice", "file slice to compact", "file slices to compact", 9),
    ), mor_only=True, ledger_actions=("compaction",)),
    ServiceDescriptor("savepoint_create", "savepoints", (
        ActionLabel("create_savepoint", "savepoint to create", "savepoints to create", 10),
    )),
    ServiceDescriptor("clean", "clean", (
        ActionLabel("delete_file", "file to delete", "files to delete", 0),
        ActionLabel("delete_partition", "partition to delete", "partitions to delete", 1),
        ActionLabel("finish_pending_clean", "pending clean to finish", "pending cleans to finish", 2),
    ), ledger_actions=("clean",)),
    ServiceDescriptor("metadata", "metadata", (
        ActionLabel("clean_metadata_table", "metadata table clean", "metadata table cleans", 14),
        ActionLabel("compact_metadata_table", "metadata table compaction",
                    "metadata table compactions", 15),
        ActionLabel("archive_metadata_table", "metadata table archival",
                    "metadata table archivals", 16),
    )),
    ServiceDescriptor("archive", "archive", (
        ActionLabel("archive_instant", "instant to archive", "instants to archive", 12),
    )),
    ServiceDescriptor("savepoint_delete", "savepoints", (
        ActionLabel("delete_savepoint", "savepoint to delete", "savepoints to delete", 11),
    )),
)  # fmt: skip
"""In the order the nodes of one table run (HUDI.md §5, see ``graph.build``)."""

SERVICE_ORDER: tuple[str, ...] = tuple(service.name for service in SERVICES)
SERVICE_BLOCKS: tuple[str, ...] = tuple(
    reversed(dict.fromkeys(service.block for service in reversed(SERVICES)))
)
"""The manifest blocks, each once, in the order their last service runs (``savepoints`` after
``archive``: its ``savepoint_delete`` runs last)."""
BY_NAME: dict[str, ServiceDescriptor] = {service.name: service for service in SERVICES}
ACTION_LABELS: tuple[ActionLabel, ...] = tuple(
    sorted(
        (DROP_METADATA_TABLE, SYNC_METADATA_TABLE, *(label for s in SERVICES for label in s.actions)),
        key=lambda a: a.rank,
    )
)
"""Every action kind a plan may hold, in summary order."""
