"""The record schema and merge rules the compaction operation tests write slices with."""

from __future__ import annotations

import json

from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.records.merge import MergeRules

KEY_TS_AVRO = json.dumps({
    "type": "record", "name": "r", "fields": [
        {"name": "k", "type": ["null", "string"], "default": None},
        {"name": "ts", "type": ["null", "long"], "default": None},
    ],
})  # fmt: skip
"""Records of a key ``k`` and an ordering field ``ts``."""
EVENT_TIME_RULES = MergeRules(MergeMode.EVENT_TIME_ORDERING, "ts", ("k",), True)
