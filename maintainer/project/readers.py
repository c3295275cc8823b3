"""Declared readers: who reads a table and how far back, so that a plan never removes what they
still need. A table's manifest (or ``defaults``) lists them::

    readers:
      - {name: finance_incremental, lag: 6h}   # incremental: reads each commit within 6 h of it
      - {name: time_travel_audit, keep: 7d}    # time travel: queries as of any time in 7 days

Either way the reader needs the table readable as of every moment after its *horizon* (now minus
``lag`` or ``keep``): every file version that was still the latest version at some moment after
the horizon, and every instant after it on the active timeline. Planning turns that into
instants (:mod:`maintainer.planning.readers`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import Field, model_validator

from maintainer.project.durations import format_duration
from maintainer.project.settings_types import Duration, FrozenModel

ReaderName = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.\-]+$")]


class ReaderSpec(FrozenModel):
    """One reader of the table: an incremental one (``lag``) or a time-travelling one (``keep``)."""

    name: ReaderName
    """Who reads (a job, a team, a dashboard): named in plans that would cut it off."""
    lag: Duration | None = None
    """An incremental reader: how far behind the latest commit it may run (it needs every commit
    since)."""
    keep: Duration | None = None
    """A time-travel reader: how far back it queries (as of any moment since)."""

    @model_validator(mode="after")
    def _one_of_lag_or_keep(self) -> ReaderSpec:
        if (self.lag is None) == (self.keep is None):
            raise ValueError(
                f"reader {self.name}: give exactly one of lag (incremental) or keep (time travel)"
            )
        return self

    @property
    def reach(self) -> timedelta:
        """How far back from now it needs the table readable."""
        value = self.lag if self.lag is not None else self.keep
        assert value is not None
        return value

    def describe(self) -> str:
        how = "lag" if self.lag is not None else "keep"
        return f"{self.name} ({how} {format_duration(self.reach)})"
