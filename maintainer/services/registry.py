"""The table services maintainer plans and applies, in the order of a table's nodes: the one
registry. Importing it installs the catalog of their declarations (``maintainer.catalog``),
from which every other list of services is derived. A selected node of a service without one
is planned ``blocked`` (see ``unsupported_reason``), so nothing silently pretends to work.

:func:`registered` runs a block with more services registered (a test's own service)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from maintainer.catalog import Catalog, install, installed, installing
from maintainer.services.archive.service import ArchiveService
from maintainer.services.base import TableService
from maintainer.services.clean.service import CleanService
from maintainer.services.clustering.service import ClusteringService
from maintainer.services.compaction.service import CompactionService
from maintainer.services.metadata.service import MetadataService
from maintainer.services.orphans.service import OrphanFilesService
from maintainer.services.rollback.service import RollbackService
from maintainer.services.savepoint.service import SavepointCreateService, SavepointDeleteService

SERVICES: tuple[TableService, ...] = (
    RollbackService(),
    CompactionService(),
    ClusteringService(),
    SavepointCreateService(),
    CleanService(),
    MetadataService(),
    OrphanFilesService(),
    ArchiveService(),
    SavepointDeleteService(),
)
BY_NAME: dict[str, TableService] = {service.declaration.name: service for service in SERVICES}
install(Catalog(tuple(service.declaration for service in SERVICES)))


def registered_services() -> tuple[TableService, ...]:
    """Every registered service, in the order of a table's nodes (the installed catalog's)."""
    return tuple(BY_NAME[name] for name in installed().order if name in BY_NAME)


def service_for(name: str) -> TableService | None:
    """The service of a graph service name (None: this version has none)."""
    return BY_NAME.get(name)


def unsupported_reason(service: str) -> str:
    return f"{service} is not supported by this version of maintainer yet"


@contextmanager
def registered(*services: TableService) -> Iterator[None]:
    """``services`` registered (after the others) while the block runs, their declarations in
    the installed catalog; then the registry as it was."""
    before = dict(BY_NAME)
    with installing(installed().extended(*(service.declaration for service in services))):
        BY_NAME.update((service.declaration.name, service) for service in services)
        try:
            yield
        finally:
            BY_NAME.clear()
            BY_NAME.update(before)
