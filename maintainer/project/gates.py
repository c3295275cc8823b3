"""Review gates: limits a plan must stay under, per table (or in ``defaults``/``_defaults.yml``).

A node over a gate is planned ``blocked`` with the figure and the gate, so a reviewer never
approves more than the team agreed to by accident: raise the gate in the manifest (a reviewed
change) or maintain the table more often.

* ``max_delete_files`` / ``max_delete_bytes``: what one clean deletes (the committed file
  versions it removes; a rollback's uncommitted files are not counted).
* ``max_compaction_bytes``: what one compaction node reads (base and log files of its slices).

Sizes are written as people write them: ``500MiB``, ``2GiB``, ``1.5TB`` (binary units with an
``i``, decimal without), or a whole number of bytes.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, WithJsonSchema

from maintainer.project.settings_types import FrozenModel

_UNITS = {
    "": 1, "b": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
}  # fmt: skip
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$")
SIZE_PATTERN = r"^\s*\d+(\.\d+)?\s*([kKmMgGtT][iI]?[bB]|[bB])?\s*$"


def parse_size(value: object) -> int:
    """Bytes from ``2GiB`` style text (or a whole number); ValueError when malformed."""
    if isinstance(value, bool):
        raise ValueError("a size is a number of bytes or text such as '500MiB', '2GiB'")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a size cannot be negative")
        return value
    if not isinstance(value, str):
        raise ValueError(f"a size is a number of bytes or text such as '500MiB', '2GiB', got {value!r}")
    match = _SIZE.match(value.lower())
    if match is None or match.group(2) not in _UNITS:
        raise ValueError(f"'{value}' is not a size; write e.g. '500MiB', '2GiB', '1.5TB' or a byte count")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


ByteSize = Annotated[
    int,
    BeforeValidator(parse_size),
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": SIZE_PATTERN}],
            "examples": ["500MiB", "2GiB"],
        }
    ),
]


class GatesSpec(FrozenModel):
    """Limits one plan node must stay under; a node over one is blocked with the figures."""

    max_delete_files: Annotated[int, Field(ge=0)] | None = None
    """At most this many files deleted by one clean."""
    max_delete_bytes: ByteSize | None = None
    """At most this many bytes deleted by one clean (e.g. 50GiB)."""
    max_compaction_bytes: ByteSize | None = None
    """At most this many bytes read by one compaction node (base and log files of its slices)."""
