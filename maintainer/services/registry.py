"""The table services maintainer plans and applies: one ``TableService`` per catalog entry, in
the catalog's order (the order of a table's nodes). A selected node of a service without one is
planned ``blocked`` (see ``unsupported_reason``), so nothing silently pretends to work."""

from __future__ import annotations

from maintainer.services.archive.service import ArchiveService
from maintainer.services.base import TableService
from maintainer.services.clean.service import CleanService
from maintainer.services.compaction.service import CompactionService
from maintainer.services.metadata.service import MetadataService
from maintainer.services.rollback.service import RollbackService
from maintainer.services.savepoint.service import SavepointCreateService, SavepointDeleteService

SERVICES: tuple[TableService, ...] = (
    RollbackService(),
    CompactionService(),
    SavepointCreateService(),
    CleanService(),
    MetadataService(),
    ArchiveService(),
    SavepointDeleteService(),
)
BY_NAME: dict[str, TableService] = {service.descriptor.name: service for service in SERVICES}


def service_for(name: str) -> TableService | None:
    """The service of a graph service name (None: this version has none)."""
    return BY_NAME.get(name)


def unsupported_reason(service: str) -> str:
    return f"{service} is not supported by this version of maintainer yet"
