"""The completed compaction's commit metadata (Hudi's ``CompactHelpers.createCompactionMetadata``)."""

from __future__ import annotations

from maintainer.executors.compaction.commit import compaction_commit_metadata
from maintainer.hudi.payloads import WriteStat
from maintainer.services.common.ledger import PLAN_ID_KEY

SCHEMA = '{"type":"record","name":"r","fields":[]}'


def test_the_plans_extra_metadata_is_copied_into_the_commit_after_the_schema() -> None:
    """CompactHelpers.createCompactionMetadata: ``addMetadata(SCHEMA_KEY, schema)``, then every
    entry of the compaction plan's extraMetadata (``forEach(metadata::addMetadata)``, so a plan
    key overrides), operation type COMPACT, compacted=true, stats grouped by partition."""
    stats = [
        WriteStat(file_id="b", path="p2/b.parquet", partition_path="p2"),
        WriteStat(file_id="a", path="p1/a.parquet", partition_path="p1"),
    ]
    plan_extra = {"_hoodie.spark.sql.writes.prepped": "true", PLAN_ID_KEY: "plan-1"}
    metadata = compaction_commit_metadata(stats, SCHEMA, plan_extra)
    assert metadata.extra_metadata == {
        "schema": SCHEMA,
        "_hoodie.spark.sql.writes.prepped": "true",
        PLAN_ID_KEY: "plan-1",
    }
    assert metadata.compacted and metadata.operation_type == "COMPACT"
    assert list(metadata.partition_to_write_stats or {}) == ["p1", "p2"]
    overriding = compaction_commit_metadata(stats, SCHEMA, {"schema": "from-plan"})
    assert (overriding.extra_metadata or {})["schema"] == "from-plan"
    assert compaction_commit_metadata(stats, SCHEMA, None).extra_metadata == {"schema": SCHEMA}
