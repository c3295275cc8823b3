"""The table schema a rewrite (compaction, clustering) writes its base files with."""

from __future__ import annotations

from maintainer.errors import ApplyError
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import Storage


def table_avro_schema(storage: Storage, timeline: Timeline, config: TableConfig) -> str:
    """The newest commit's writer schema, else ``hoodie.table.create.schema``."""
    for instant in reversed(timeline.completed_commits()):
        path = timeline.file_path(instant, State.COMPLETED)
        metadata = payloads.decode_commit_metadata(storage.read_bytes(path), storage.uri(path))
        if metadata.table_schema:
            return metadata.table_schema
    if config.create_schema:
        return config.create_schema
    raise ApplyError(
        "the table has no schema in its commits or hoodie.properties: cannot write base files",
        where=storage.base_uri,
    )
