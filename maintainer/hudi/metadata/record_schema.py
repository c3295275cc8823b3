"""The ``HoodieMetadataRecord`` schema a metadata table was written with.

Hudi versions differ in this schema (1.0 and 1.1 do), so new records are written with the
table's own: the one its latest completed deltacommit recorded (``extraMetadata.schema``), and
in log-block headers the same with Hudi's five meta fields in front (the metadata table does
not populate them, but its writer's schema has them)."""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads.decode import decode_commit_metadata
from maintainer.storage import Storage

_META_FIELDS = "".join(
    f'{{"name":"{name}","type":["null","string"],"doc":"","default":null}},'
    for name in (
        "_hoodie_commit_time",
        "_hoodie_commit_seqno",
        "_hoodie_record_key",
        "_hoodie_partition_path",
        "_hoodie_file_name",
    )
)
_FIELDS = '"fields":['


@dataclass(frozen=True)
class MetadataSchemas:
    commit_schema: str
    """As recorded in a deltacommit's ``extraMetadata.schema``."""

    @property
    def block_schema(self) -> str:
        """As written in an HFILE_DATA block's SCHEMA header."""
        return self.commit_schema.replace(_FIELDS, _FIELDS + _META_FIELDS, 1)


def metadata_schemas(storage: Storage, timeline: Timeline) -> MetadataSchemas:
    """The schemas of the newest completed deltacommit of the metadata table at ``storage``."""
    for instant in reversed(timeline.completed()):
        if instant.action is not Action.DELTA_COMMIT:
            continue
        path = timeline.file_path(instant)
        metadata = decode_commit_metadata(storage.read_bytes(path), storage.uri(path))
        schema = (metadata.extra_metadata or {}).get("schema")
        if schema and _FIELDS in schema:
            return MetadataSchemas(schema)
    raise CorruptFileError(
        "no completed metadata deltacommit records the metadata record schema",
        where=storage.uri(timeline.directory),
        hint="let a Hudi writer complete a write (it rebuilds or syncs the metadata table), or set "
        "`metadata_table: drop` for this table",
    )
