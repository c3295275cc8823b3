"""The base of every record of the plan: JSON with a field the record does not have is refused
(the plan is read strictly, see ``nodes.read_body``), and the schema of what is written has
every field required (a record always writes all of them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pydantic import ConfigDict


@dataclass(frozen=True, slots=True)
class PlanRecord:
    """Subclasses are ``@dataclass(frozen=True, slots=True, kw_only=True)``."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", json_schema_serialization_defaults_required=True
    )
