"""The two timeline layouts and the rules each owns: directories, instant file names, history.

Layout 1 (table versions up to 6, Hudi 0.x): instants in ``.hoodie/``, completed files
``<ts>.<action>`` without completion time, commit metadata as JSON, archived instants in
``.hoodie/archived/`` (``hoodie.archivelog.folder``) as log files; a log file names the
instant of its file slice.

Layout 2 (table versions 8+, Hudi 1.x): instants in ``.hoodie/timeline/``
(``hoodie.timeline.path``), completed files ``<ts>_<completion>.<action>``, commit metadata
as Avro, archived instants in the LSM history ``.hoodie/timeline/history/``
(``hoodie.timeline.history.path``); a log file belongs to the slice its deltacommit's
completion time falls in.
"""

from __future__ import annotations

from enum import IntEnum

LAYOUT_2_SINCE_VERSION = 8
"""Hudi writes timeline layout 2 from table version 8 (Hudi 1.0) on."""


class TimelineLayout(IntEnum):
    """``hoodie.timeline.layout.version``; an IntEnum, so it reads and prints as Hudi's number."""

    V1 = 1
    V2 = 2

    @classmethod
    def for_version(cls, table_version: int) -> TimelineLayout:
        """The layout Hudi writes for a table version (the property's default)."""
        return cls.V2 if table_version >= LAYOUT_2_SINCE_VERSION else cls.V1

    @classmethod
    def parse(cls, text: str) -> TimelineLayout:
        """The layout a ``hoodie.timeline.layout.version`` value names (ValueError otherwise)."""
        if text not in ("1", "2"):
            raise ValueError(f"hoodie.timeline.layout.version must be 1 or 2, not {text!r}")
        return cls(int(text))

    @property
    def records_completion_time(self) -> bool:
        """Completed instant files carry their completion time (``<ts>_<completion>.<action>``)."""
        return self is TimelineLayout.V2

    @property
    def logs_name_their_slice(self) -> bool:
        """A log file's instant is its slice's base instant (layout 1); on layout 2 it is the
        log's own deltacommit, and the slice follows from that one's completion time."""
        return self is TimelineLayout.V1

    @property
    def commit_metadata_is_avro(self) -> bool:
        """Completed commit files hold Avro (layout 2) rather than JSON (layout 1)."""
        return self is TimelineLayout.V2

    @property
    def has_lsm_history(self) -> bool:
        """Archived instants live in the LSM history (layout 2), not in archive log files."""
        return self is TimelineLayout.V2

    def timeline_dir(self, timeline_path: str = "timeline") -> str:
        """The active timeline directory, relative to the table base path."""
        return ".hoodie" if self is TimelineLayout.V1 else f".hoodie/{timeline_path}"

    def archive_dir(
        self, archive_folder: str = "archived", timeline_path: str = "timeline", history_path: str = "history"
    ) -> str:
        """Where archived instants go, relative to the table base path."""
        if self is TimelineLayout.V1:
            return f".hoodie/{archive_folder}"
        return f"{self.timeline_dir(timeline_path)}/{history_path}"

    def completed_file_name(self, timestamp: str, action: str, completion_time: str | None) -> str:
        """The file name of a completed instant (``action`` as it completes: ``commit``…)."""
        if self is TimelineLayout.V1:
            return f"{timestamp}.{action}"
        if not completion_time:
            raise ValueError(f"completed instant {timestamp} needs a completion time on timeline layout 2")
        return f"{timestamp}_{completion_time}.{action}"
