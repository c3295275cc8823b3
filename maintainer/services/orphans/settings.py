"""The ``orphan_files`` block: remove the files no instant of the table accounts for.

Hudi has no option for it (its ``HoodieRepairTool`` takes command-line flags); the names follow
Delta's ``VACUUM`` and Iceberg's ``remove_orphan_files``: ``min_age`` is their retention (7 days
by default, refused under 1 hour: a writer may have written a file and not committed yet)."""

from __future__ import annotations

import re
from datetime import timedelta

from pydantic import field_validator

from maintainer.project.durations import format_duration
from maintainer.project.settings_types import Duration, FrozenModel

MIN_AGE_FLOOR = timedelta(hours=1)
QUARANTINE_ROOT = ".hoodie"
_FOLDER_NAME = re.compile(r"^\.[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
HUDI_FOLDERS = frozenset({".aux", ".temp", ".heartbeat", ".schema", ".bootstrap", ".index_defs", ".lock"})
"""Folders of ``.hoodie/`` that Hudi itself uses: never a quarantine."""


class OrphanFilesSpec(FrozenModel):
    """Remove the data files and leftovers no instant accounts for (failed writes' files no
    rollback removed, failed task attempts' files, stale markers), older than ``min_age``."""

    enabled: bool = True
    min_age: Duration = timedelta(days=7)
    """Only files older than this are removed (Delta's retention; at least 1h)."""
    quarantine: str | None = None
    """A folder name under the table's ``.hoodie/`` (``.quarantine``): the files are moved there
    instead of deleted, a batch per apply, and ``maintainer quarantine restore`` moves them back."""

    @field_validator("min_age")
    @classmethod
    def _not_under_an_hour(cls, value: timedelta) -> timedelta:
        if value < MIN_AGE_FLOOR:
            raise ValueError(
                f"min_age {format_duration(value)} is under 1h: a writer may have written a file and not "
                "committed it yet; use 1h or more (7d, Delta's retention, is the default)"
            )
        return value

    @field_validator("quarantine")
    @classmethod
    def _one_folder_name(cls, value: str | None) -> str | None:
        if value is not None and (not _FOLDER_NAME.match(value) or value in HUDI_FOLDERS):
            raise ValueError(
                f"quarantine {value!r} is not a folder name of ours: give one name starting with '.' "
                "(letters, digits, '.', '_', '-'; e.g. .quarantine), not one of Hudi's own "
                f"({', '.join(sorted(HUDI_FOLDERS))}); it is made under the table's .hoodie/, so apply "
                "never writes outside the table and no Hudi reader or writer looks into it"
            )
        return value

    def quarantine_folder(self) -> str | None:
        """The table-relative quarantine folder (``.hoodie/.quarantine``), None: delete."""
        return None if self.quarantine is None else f"{QUARANTINE_ROOT}/{self.quarantine}"
