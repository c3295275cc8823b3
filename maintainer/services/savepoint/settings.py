"""The manifest's ``savepoints`` block: the savepoints a table must have (fixed instants and a
rolling one), read by both savepoint services."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, Field, field_validator

from maintainer.catalog import RuleBreach
from maintainer.project.models import TableSpec
from maintainer.project.settings_types import Duration, FrozenModel, PositiveInt

INSTANT_PATTERN = r"^\d{14}(\d{3})?$"


class RollingSavepoints(FrozenModel):
    """A savepoint on the latest completed commit once every ``every``; the newest ``keep`` rolling
    savepoints are kept and older ones (not listed in ``instants``) are deleted."""

    every: Duration = timedelta(days=1)
    keep: PositiveInt = 7

    @field_validator("every")
    @classmethod
    def _at_least_a_minute(cls, value: timedelta) -> timedelta:
        if value < timedelta(minutes=1):
            raise ValueError("rolling savepoints need 'every' of at least 1m")
        return value


InstantTime = Annotated[
    str,
    BeforeValidator(
        lambda value: str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    ),
    Field(pattern=INSTANT_PATTERN),
]


class SavepointsSpec(FrozenModel):
    """The savepoints the table must have: fixed instants (completed commit times) and/or a rolling one."""

    enabled: bool = True
    instants: tuple[InstantTime, ...] = ()
    """Instant times (yyyyMMddHHmmss[SSS]) of completed commits that must stay savepointed."""
    rolling: RollingSavepoints | None = None

    @field_validator("instants")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({item for item in value if value.count(item) > 1})
        if repeated:
            raise ValueError(f"instant {repeated[0]} is listed twice")
        return value


def savepoints_rules(spec: TableSpec) -> list[RuleBreach]:
    """A savepoints block names the savepoints it keeps."""
    savepoints = spec.settings_of(SavepointsSpec)
    if savepoints is not None and not savepoints.instants and savepoints.rolling is None:
        return [
            RuleBreach(
                "savepoints needs 'instants' or 'rolling'",
                "list instants: [<commit time>, ...] and/or rolling: {every: 1d, keep: 7}, "
                "or set enabled: false",
                (("savepoints",),),
            )
        ]
    return []
