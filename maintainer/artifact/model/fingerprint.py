"""A table's fingerprint: the state a plan was made on (every instant with its state and
completion time, the savepoints, a checksum of ``hoodie.properties``). Apply compares it with
the table before it starts anything: a plan made on another state is stale."""

from __future__ import annotations

import hashlib

from maintainer.artifact.model.nodes import TableFingerprint
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.timeline import Timeline


def table_fingerprint(timeline: Timeline, config: TableConfig) -> TableFingerprint:
    instants = tuple(
        f"{i.timestamp}.{i.action.value}.{i.state.value}"
        + (f"@{i.completion_time}" if i.completion_time and i.completion_time != i.timestamp else "")
        for i in timeline.instants
    )
    properties = "".join(f"{k}={v}\n" for k, v in sorted(config.raw.items()))
    checksum = hashlib.sha256(properties.encode()).hexdigest()
    savepoints = tuple(i.timestamp for i in timeline.savepoints())
    return TableFingerprint(instants=instants, savepoints=savepoints, properties_checksum=checksum)
