"""Turning problems into ManifestErrors that say where (file:line:col) and what to do.

``validation_error`` maps a pydantic ValidationError onto the YAML marks of the
offending keys and values; ``ManifestErrorGroup`` carries several errors at once so
``validate`` can report every problem in one run.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from maintainer.errors import ManifestError
from maintainer.project.yamlsrc import Mark, Path_


class Locator(Protocol):
    def mark(self, path: Path_) -> Mark: ...

    def key_mark(self, path: Path_) -> Mark: ...


class ManifestErrorGroup(ManifestError):
    """Several manifest errors found in one pass, reported together."""

    def __init__(self, errors: Sequence[ManifestError]) -> None:
        self.errors = tuple(errors)
        first = self.errors[0]
        super().__init__(first.message, where=first.where, hint=first.hint)

    def __str__(self) -> str:
        body = "\n".join(str(error) for error in self.errors)
        return f"{body}\n{len(self.errors)} errors" if len(self.errors) > 1 else body


def raise_all(errors: Sequence[ManifestError]) -> None:
    """Raise the errors found (one, or a group), or nothing."""
    deduped: dict[str, ManifestError] = {}
    for error in _flatten(errors):
        deduped.setdefault(str(error), error)
    found = list(deduped.values())
    if len(found) == 1:
        raise found[0]
    if found:
        raise ManifestErrorGroup(found)


def _flatten(errors: Sequence[ManifestError]) -> list[ManifestError]:
    flat: list[ManifestError] = []
    for error in errors:
        flat.extend(_flatten(error.errors) if isinstance(error, ManifestErrorGroup) else [error])
    return flat


def did_you_mean(word: str, choices: Iterable[Any], what: str = "options") -> str:
    """A hint naming the closest choice (if any) and listing the valid ones."""
    names = sorted(str(choice) for choice in choices)
    close = difflib.get_close_matches(str(word), names, n=1, cutoff=0.6)
    listing = f"valid {what}: {', '.join(names)}" if names else f"no {what} are defined here"
    return f"did you mean '{close[0]}'? ({listing})" if close else listing


def dotted(path: Sequence[str | int]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def validation_error(
    exc: ValidationError, locator: Locator, prefix: Path_, context: str, model: type[BaseModel] | None = None
) -> ManifestError:
    """One ManifestError (or a group) for a pydantic ValidationError, placed with ``locator``."""
    errors = [_one_error(detail, locator, prefix, context, model) for detail in exc.errors(include_url=False)]
    return errors[0] if len(errors) == 1 else ManifestErrorGroup(errors)


def _one_error(
    detail: Any, locator: Locator, prefix: Path_, context: str, model: type[BaseModel] | None
) -> ManifestError:
    loc = _clean_loc(detail["loc"])
    kind = detail["type"]
    subject = f"{context}: {dotted(loc)}" if loc else context
    value = detail.get("input")
    if kind == "extra_forbidden":
        key = str(loc[-1]) if loc else "?"
        allowed = _allowed_keys(model, loc[:-1]) if model else ()
        where = locator.key_mark((*prefix, *loc))
        parent = f" in {dotted(loc[:-1])}" if loc[:-1] else ""
        return ManifestError(
            f"{context}: unknown option '{key}'{parent}", where=str(where), hint=did_you_mean(key, allowed)
        )
    where = locator.mark((*prefix, *loc))
    if kind == "missing":
        field = str(loc[-1]) if loc else "?"
        return ManifestError(
            f"{context}: missing required option '{dotted(loc)}'",
            where=str(where),
            hint=f"add '{field}: ...'",
        )
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", detail.get("ctx", {}).get("expected", ""))
        return ManifestError(
            f"{subject}: {value!r} is not allowed",
            where=str(where),
            hint=did_you_mean(str(value), choices, "values"),
        )
    message = str(detail["msg"]).removeprefix("Value error, ")
    if kind == "value_error" and "; " in message:
        message, advice = message.split("; ", 1)
        return ManifestError(f"{subject}: {message}", where=str(where), hint=advice)
    return ManifestError(
        f"{subject}: {message} (got {_short(value)})", where=str(where), hint=_hint_for(kind, detail)
    )


def _clean_loc(loc: Sequence[Any]) -> Path_:
    """Drop pydantic's union-member tags (``function-after[...]``, ``str``) from a location."""
    return tuple(step for step in loc if not (isinstance(step, str) and ("[" in step or step in _TYPE_TAGS)))


_TYPE_TAGS = {"str", "int", "float", "bool"}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _hint_for(kind: str, detail: Any) -> str:
    ctx = detail.get("ctx", {})
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(ctx.values()), "?")
        relation = {
            "greater_than_equal": ">=",
            "greater_than": ">",
            "less_than_equal": "<=",
            "less_than": "<",
        }
        return f"use a value {relation[kind]} {bound}"
    if kind.startswith(("int", "float")):
        return "write a whole number without quotes, e.g. 10"
    if kind.startswith("bool"):
        return "write true or false"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return "this option takes a mapping of options (key: value lines indented below it)"
    if kind in ("list_type", "tuple_type"):
        return "this option takes a list, e.g. [a, b] or '- a' lines"
    if kind == "string_pattern_mismatch":
        return f"the value must match {ctx.get('pattern', 'the expected format')}"
    if kind in ("string_type",):
        return "write a text value (quote it if it looks like a number or a date)"
    return "see schemas/ or tables/example.yml from 'maintainer init' for the valid options"


def _allowed_keys(model: type[BaseModel], loc: Path_) -> tuple[str, ...]:
    current: Any = model
    for step in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel) and isinstance(step, str):
            field = current.model_fields.get(step)
            if field is None:
                return ()
            current = field.annotation
        else:
            args = typing.get_args(current)
            current = args[-1] if args else None
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return tuple(current.model_fields)
    return ()


def _unwrap(annotation: Any) -> Any:
    """Optional[X] -> X, Annotated[X, ...] -> X; containers are left alone."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
            annotation = members[0]
        else:
            return annotation
