"""The project's Avro schemas of Hudi's timeline payloads, made self-contained the way Java writes them.

The canonical ``.avsc`` files live in ``schemas/avro/`` (one file per named type, other named
types referenced by full name). They ship inside the package through the symlink
``maintainer/resources/avro -> ../../schemas/avro`` (setuptools copies the files into wheels), so
they load with :mod:`importlib.resources` from a checkout and from an installed package alike.

A schema embedded in an Avro container must be self-contained: Java's parser rejects a named
type that is defined twice, so each named type is defined inline at its first use and referred to
by full name afterwards (:func:`inline_named_types`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from typing import Any

import fastavro

from maintainer.errors import TableFormatError

NAMESPACE = "org.apache.hudi.avro.model"
PRIMITIVE_TYPES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
NAMED_KINDS = frozenset({"record", "error", "enum", "fixed"})

Schema = Any
"""A JSON Avro schema: a type name, a list (union) or a dict."""


def schema_directory() -> Any:
    """The directory (a :class:`importlib.resources.abc.Traversable`) holding the ``.avsc`` files."""
    return resources.files("maintainer") / "resources" / "avro"


def full_name(name: str, namespace: str | None = NAMESPACE) -> str:
    """``name`` qualified with ``namespace`` unless it already carries a dot."""
    if "." in name or not namespace:
        return name
    return f"{namespace}.{name}"


@cache
def schema_file(name: str) -> dict[str, Any]:
    """The parsed ``.avsc`` file defining the named type ``name`` (short or full name)."""
    short = name.rsplit(".", 1)[-1]
    source = schema_directory() / f"{short}.avsc"
    try:
        loaded: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TableFormatError(
            f"cannot load the Avro schema of {short}: {error}",
            where=str(source),
            hint="the package's schemas/avro files are missing or damaged; reinstall maintainer",
        ) from error
    return loaded


def inline_named_types(schema: Schema, resolve: Callable[[str], dict[str, Any]] = schema_file) -> Schema:
    """``schema`` with every named type defined once, at its first use, and referenced by full name after.

    A reference to a type not yet defined is replaced by its definition from ``resolve`` (the
    project's ``.avsc`` files by default); a repeated definition (as in a fully expanded schema) is
    replaced by a reference.
    """
    return _Inliner(resolve).visit(schema, None)


class _Inliner:
    def __init__(self, resolve: Callable[[str], dict[str, Any]]) -> None:
        self.resolve = resolve
        self.defined: set[str] = set()

    def visit(self, schema: Schema, namespace: str | None) -> Schema:
        if isinstance(schema, str):
            return self.visit_name(schema, namespace)
        if isinstance(schema, list):
            return [self.visit(branch, namespace) for branch in schema]
        kind = schema.get("type")
        if kind in NAMED_KINDS:
            return self.visit_named(schema, namespace)
        if kind == "array":
            return {**schema, "items": self.visit(schema["items"], namespace)}
        if kind == "map":
            return {**schema, "values": self.visit(schema["values"], namespace)}
        if isinstance(kind, (dict, list)) or (isinstance(kind, str) and kind not in PRIMITIVE_TYPES):
            return self.visit(kind, namespace)
        return schema

    def visit_name(self, name: str, namespace: str | None) -> Schema:
        if name in PRIMITIVE_TYPES:
            return name
        qualified = full_name(name, namespace)
        if qualified in self.defined:
            return qualified
        return self.visit_named(self.resolve(qualified), namespace)

    def visit_named(self, definition: dict[str, Any], namespace: str | None) -> Schema:
        own_namespace = definition.get("namespace", namespace)
        qualified = full_name(definition["name"], own_namespace)
        if qualified in self.defined:
            return qualified
        self.defined.add(qualified)
        inner_namespace = qualified.rsplit(".", 1)[0] if "." in qualified else None
        result: dict[str, Any] = {"type": definition["type"], "name": qualified.rsplit(".", 1)[-1]}
        if inner_namespace != namespace and inner_namespace is not None:
            result["namespace"] = inner_namespace
        for key, value in definition.items():
            if key in ("type", "name", "namespace"):
                continue
            if key == "fields":
                result["fields"] = [self.visit_field(field, inner_namespace) for field in value]
            else:
                result[key] = value
        return result

    def visit_field(self, field: dict[str, Any], namespace: str | None) -> dict[str, Any]:
        return {key: self.visit(value, namespace) if key == "type" else value for key, value in field.items()}


def defined_names(schema: Schema) -> list[str]:
    """The full names of the named types ``schema`` defines, once per definition (repeats included)."""
    return list(_definitions(schema, None))


def _definitions(schema: Schema, namespace: str | None) -> Iterator[str]:
    if isinstance(schema, list):
        for branch in schema:
            yield from _definitions(branch, namespace)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in NAMED_KINDS:
        qualified = full_name(schema["name"], schema.get("namespace", namespace))
        yield qualified
        inner = qualified.rsplit(".", 1)[0] if "." in qualified else None
        for field in schema.get("fields", []):
            yield from _definitions(field["type"], inner)
    elif kind == "array":
        yield from _definitions(schema["items"], namespace)
    elif kind == "map":
        yield from _definitions(schema["values"], namespace)
    elif isinstance(kind, (dict, list)):
        yield from _definitions(kind, namespace)


def self_contained_schema(name: str) -> Schema:
    """The schema of Hudi type ``name`` (e.g. ``HoodieCleanerPlan``), every named type defined once.

    A fresh copy on every call: callers may change it.
    """
    return json.loads(schema_text(name))


@cache
def schema_text(name: str) -> str:
    """The compact JSON text of :func:`self_contained_schema` as embedded in containers we write."""
    return json.dumps(inline_named_types(full_name(name)), separators=(",", ":"), ensure_ascii=False)


@cache
def parsed_schema(name: str) -> Any:
    """The fastavro-parsed form of :func:`self_contained_schema` (for encoding and validation)."""
    return fastavro.parse_schema(json.loads(schema_text(name)))


def field_names(name: str) -> tuple[str, ...]:
    """The field names of record type ``name`` in schema order."""
    return tuple(field["name"] for field in schema_file(name)["fields"])
