"""Sample records and schema shared by the log-format unit tests."""

from __future__ import annotations

import json

TRIP_SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "trips_record",
        "namespace": "hoodie.trips",
        "fields": [
            {"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "", "default": None},
            {"name": "_hoodie_commit_seqno", "type": ["null", "string"], "doc": "", "default": None},
            {"name": "_hoodie_record_key", "type": ["null", "string"], "doc": "", "default": None},
            {"name": "_hoodie_partition_path", "type": ["null", "string"], "doc": "", "default": None},
            {"name": "_hoodie_file_name", "type": ["null", "string"], "doc": "", "default": None},
            {"name": "ts", "type": ["null", "long"], "default": None},
            {"name": "fare", "type": ["null", "double"], "default": None},
            {"name": "city", "type": ["null", "string"], "default": None},
        ],
    },
    separators=(",", ":"),
)


def trip(key: str, ts: int, fare: float = 1.5, instant: str = "20250101000000000") -> dict[str, object]:
    return {
        "_hoodie_commit_time": instant,
        "_hoodie_commit_seqno": f"{instant}_0_{key}",
        "_hoodie_record_key": key,
        "_hoodie_partition_path": "city=sf",
        "_hoodie_file_name": "fg-0",
        "ts": ts,
        "fare": fare,
        "city": "sf",
    }
