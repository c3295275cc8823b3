"""JSON as Hudi's Jackson ``ObjectMapper`` reads and writes it for table-version-6 commit metadata.

Hudi 0.x writes commit metadata with Jackson's default pretty printer: objects open a new line per
field indented by two spaces per nesting level, ``"key" : value``, empty objects ``{ }``; arrays
stay on one line, ``[ a, b ]``, empty arrays ``[ ]``; no trailing newline. Doubles use Java's
``Double.toString`` form (``1.0``, ``1.0E-5``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from maintainer.errors import CorruptFileError
from maintainer.storage.limits import loads_bounded

INDENT = "  "
JSON_HINT = (
    "the commit metadata is not valid JSON; the file is damaged: restore it, or roll back the "
    "instant with Hudi"
)


def dumps(value: Any) -> str:
    """``value`` (dicts, lists, str, int, float, bool, None) as Jackson's pretty printer writes it."""
    return _dump(value, 0)


def loads_object(data: bytes, where: str) -> dict[str, Any]:
    """The JSON object in ``data``; :class:`CorruptFileError` naming ``where`` if it is not one
    (or is nested too deep, or holds a number too long: :mod:`maintainer.storage.limits`)."""
    # Jackson writes NaN and Infinity for such doubles (Double.toString): they are read back
    value = loads_bounded(
        data, what="the file", where=where, error=CorruptFileError, hint=JSON_HINT, allow_constants=True
    )
    if not isinstance(value, dict):
        raise CorruptFileError(
            f"expected a JSON object, found {type(value).__name__}", where=where, hint=JSON_HINT
        )
    return value


def _dump(value: Any, nesting: int) -> str:
    if isinstance(value, dict):
        return _dump_object(value, nesting)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(_dump(item, nesting) for item in value) + " ]"
    return _dump_scalar(value)


def _dump_object(value: dict[Any, Any], nesting: int) -> str:
    if not value:
        return "{ }"
    indent = INDENT * (nesting + 1)
    entries = [f"\n{indent}{_string(str(key))} : {_dump(item, nesting + 1)}" for key, item in value.items()]
    return "{" + ",".join(entries) + "\n" + INDENT * nesting + "}"


def _dump_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    raise TypeError(f"cannot write {type(value).__name__} as commit metadata JSON")


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"


def _string(value: str) -> str:
    """A JSON string as Jackson writes it: short escapes where JSON has them, else upper-case ``\\uXXXX``."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, value) + '"'


def java_double(value: float) -> str:
    """``value`` as Java's ``Double.toString`` (and so Jackson) writes it."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    magnitude = abs(value)
    if value == 0 or 1e-3 <= magnitude < 1e7:
        text = repr(value)
        return text if "." in text else f"{text}.0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    if not isinstance(exponent, int):
        return repr(value)
    mantissa = "".join(map(str, digits))
    scientific_exponent = exponent + len(mantissa) - 1
    fraction = mantissa[1:] or "0"
    return f"{'-' if sign else ''}{mantissa[0]}.{fraction}E{scientific_exponent}"
