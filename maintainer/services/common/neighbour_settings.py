"""What a service reads of another service's settings, by the other's manifest block, through the
installed catalog: services do not import each other (the independence contract), and the
model, its defaults and Hudi's names stay in the owning service's ``settings.py``. Each view
names only the options the reader uses (archive: clean's retention for its rule, the
compaction trigger for its guard)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from maintainer.catalog import CatalogError, installed
from maintainer.project.models import TableSpec


@runtime_checkable
class CleanRetention(Protocol):
    """What the ``clean`` block says of retention (hoodie.clean.commits.retained)."""

    @property
    def commits_retained(self) -> int: ...


@runtime_checkable
class CompactionTriggerView(Protocol):
    """When compactions are scheduled (hoodie.compact.inline.trigger.strategy and
    hoodie.compact.inline.max.delta.commits)."""

    @property
    def strategy(self) -> str: ...

    @property
    def max_delta_commits(self) -> int: ...


@runtime_checkable
class CompactionView(Protocol):
    """What the ``compaction`` block says of its trigger."""

    @property
    def trigger(self) -> CompactionTriggerView: ...


def clean_retention(spec: TableSpec) -> CleanRetention | None:
    """The table's ``clean`` settings (None: clean does not run for it)."""
    value = _block(spec, "clean")
    if value is None or isinstance(value, CleanRetention):
        return value
    raise _unreadable("clean", "commits_retained")


def compaction_of(spec: TableSpec) -> CompactionView | None:
    """The table's ``compaction`` settings (None: compaction does not run for it)."""
    value = _block(spec, "compaction")
    if value is None or isinstance(value, CompactionView):
        return value
    raise _unreadable("compaction", "trigger")


def compaction_defaults() -> CompactionView:
    """The ``compaction`` block's defaults (Hudi's), as its service declares them."""
    value = _model("compaction")()
    if isinstance(value, CompactionView):
        return value
    raise _unreadable("compaction", "trigger")


def _block(spec: TableSpec, block: str) -> object:
    _model(block)
    return getattr(spec, block, None)


def _model(block: str) -> type[Any]:
    model = installed().settings.get(block)
    if model is None:
        raise CatalogError(f"no installed service declares the settings of the {block} block")
    return model


def _unreadable(block: str, option: str) -> CatalogError:
    return CatalogError(f"the {block} block's settings have no {option}")
