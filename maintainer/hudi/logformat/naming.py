"""Names of new log files (uses :class:`maintainer.hudi.file_groups.filenames.LogFileName`).

* table version 6: appends go to the file slice's log named by the slice's **base instant**;
  a new file (rollover, rollback block, a different writer) takes the next version
  (max existing version of that file id + base instant, plus one; the first is 1);
* table version 8+: every deltacommit writes a new log file named by **its own instant**,
  version 1.
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi.file_groups.filenames import LogFileName

FIRST_LOG_VERSION = 1


def next_log_file_v6(
    existing_names: Iterable[str], file_id: str, base_instant: str, write_token: str
) -> LogFileName:
    """The next log file of file group ``file_id`` in the slice based at ``base_instant``."""
    versions = [
        parsed.version
        for parsed in (LogFileName.parse(name) for name in existing_names)
        if parsed is not None
        and parsed.suffix == "log"
        and not parsed.is_cdc
        and parsed.file_id == file_id
        and parsed.instant_time == base_instant
    ]
    version = max(versions, default=FIRST_LOG_VERSION - 1) + 1
    return LogFileName(file_id, base_instant, version, write_token)


def new_log_file_v8(file_id: str, deltacommit_instant: str, write_token: str) -> LogFileName:
    """The log file a deltacommit writes for file group ``file_id`` (table version 8+)."""
    return LogFileName(file_id, deltacommit_instant, FIRST_LOG_VERSION, write_token)
