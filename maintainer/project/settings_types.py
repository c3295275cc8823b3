"""The vocabulary the services' settings models are written in (each service's own model, with
Hudi's defaults and names, is in its folder: ``services/<name>/settings.py``, named by its
``ServiceDeclaration.settings``).

Option names are Hudi's config keys in snake_case. Every block also takes ``enabled`` (default
true): a service runs for a table when its block is present (from the defaults or the table
itself) and not ``enabled: false``.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
)

from maintainer.project.durations import DURATION_PATTERN, format_duration, parse_duration

Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema({"type": "string", "pattern": DURATION_PATTERN, "examples": ["30m", "1h", "7d"]}),
]


def _compiled(value: str) -> str:
    """``value`` when it is a valid (Python) regular expression, else a clear error."""
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"'{value}' is not a valid regular expression: {exc}") from exc
    return value


RegexPattern = Annotated[str, AfterValidator(_compiled)]
"""A regular expression (Python's), checked when the manifest is read."""
PositiveInt = Annotated[int, Field(ge=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]


class FrozenModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)
