"""Service-level objectives of a table (``slo:`` in a manifest, a table's defaults or the
project's), checked by ``maintainer status``: each declared limit is either met (ok) or not
(overdue), and a scheduled ``status`` exits non-zero while any is overdue.

Inherited like every default: mappings merge key by key, the most specific value wins.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import Field

from maintainer.project.gates import ByteSize
from maintainer.project.settings_types import Duration, FrozenModel, PositiveInt

SMALL_FILE_LIMIT = 104_857_600
"""Hudi's ``hoodie.parquet.small.file.limit`` default (100 MiB): a base file under it is small."""

Share = Annotated[float, Field(ge=0.0, le=1.0)]


class ObjectivesSpec(FrozenModel):
    """Limits a table is expected to stay within; unset ones are not objectives (the health
    score still weighs them, against the defaults ``maintainer status --help`` lists)."""

    max_log_files_per_slice: PositiveInt | None = None
    """At most this many log files in any file slice (merge-on-read): more means compaction is behind."""
    max_pending_age: Duration | None = None
    """No pending instant older than this (e.g. 6h): an older one is stuck and holds services back."""
    max_small_file_share: Share | None = None
    """At most this share (0-1) of the latest base files under small_file_limit."""
    max_active_instants: PositiveInt | None = None
    """At most this many instants on the active timeline (archival keeps it short)."""
    max_since_clean: Duration | None = None
    """The last completed clean is at most this old (e.g. 2d)."""
    small_file_limit: ByteSize = SMALL_FILE_LIMIT
    """hoodie.parquet.small.file.limit: a base file under this size is small (default 100MiB)."""


DEFAULT_OBJECTIVES = ObjectivesSpec(
    max_log_files_per_slice=10,
    max_pending_age=timedelta(hours=24),
    max_small_file_share=0.5,
    max_active_instants=60,
    max_since_clean=timedelta(days=7),
)
"""What the health score weighs a table against where its ``slo`` sets no limit (not objectives:
an unset limit never makes a table overdue)."""
