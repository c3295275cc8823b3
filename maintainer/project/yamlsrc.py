"""Safe YAML loading that remembers where every key and value came from.

PyYAML's composer gives nodes with marks; we build plain Python values from them
(only the safe scalar types) and record, per path from the document root, the
line and column of the value and of its key. Duplicate keys are an error, not a
silent overwrite. Timestamps stay strings (instant times and dates are text here).

A manifest may come from anyone who can open a pull request, so parsing is bounded
(``YamlLimits``): the file size is checked before reading, and a cheap pass over the
parser's events (iterative, no recursion) refuses deep nesting and documents whose
aliases would expand past a node budget before anything is composed or built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from maintainer.errors import ManifestError

Path_ = tuple[str | int, ...]

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})
_TEXT_TAGS = frozenset({"tag:yaml.org,2002:str", _TIMESTAMP_TAG})
_OPENING_EVENTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSING_EVENTS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


@dataclass(frozen=True, slots=True)
class YamlLimits:
    """Bounds on one YAML file, so a hostile file is refused in well under a second.

    The defaults are far above any real manifest (a table is about 10 values, nested 5 deep)
    and low enough that parsing and building stay below ~1.5 s on a slow machine.
    """

    max_bytes: int = 1024 * 1024
    """File size; a larger manifest should be split into several files."""
    max_depth: int = 64
    """Nesting of lists and mappings; deeper input would exhaust the C stack in the composer."""
    max_values: int = 100_000
    """Values (scalars, lists, mappings) once every alias is expanded: bounds billion-laughs files."""


DEFAULT_LIMITS = YamlLimits()


@dataclass(frozen=True, slots=True)
class Mark:
    """A place in a file, 1-based; ``column`` is 0 when unknown."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"


@dataclass(frozen=True)
class YamlDocument:
    """A parsed file: its data and the marks of every value (``values``) and key (``keys``)."""

    file: str
    data: Any
    values: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    """(line, column), 1-based, of the value at each path."""
    keys: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def mark(self, path: Path_) -> Mark:
        """The mark of the value at ``path``, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            found = self.values.get(path[:end])
            if found is not None:
                return Mark(self.file, *found)
        return Mark(self.file, 1)

    def key_mark(self, path: Path_) -> Mark:
        found = self.keys.get(path)
        return Mark(self.file, *found) if found is not None else self.mark(path)


def load_yaml_file(path: Path, display_name: str, limits: YamlLimits = DEFAULT_LIMITS) -> YamlDocument:
    """Read and parse one YAML file; every failure is a ManifestError naming the file."""
    try:
        text = _read_bounded(path, display_name, limits.max_bytes)
    except FileNotFoundError as exc:
        raise ManifestError(
            "file not found", where=display_name, hint="check the path and the project folder"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(
            f"cannot read file: {exc}", where=display_name, hint="the file must be readable UTF-8 text"
        ) from exc
    return load_yaml_text(text, display_name, limits)


def _read_bounded(path: Path, display_name: str, max_bytes: int) -> str:
    """The file's text, reading at most ``max_bytes + 1`` bytes (a FIFO or device never fills memory)."""
    with path.open("rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(display_name, max_bytes)
    return data.decode("utf-8")


def _too_large(display_name: str, max_bytes: int) -> ManifestError:
    return ManifestError(
        f"file is larger than {max_bytes} bytes",
        where=f"{display_name}:1",
        hint="split the tables over several manifest files",
    )


def load_yaml_text(text: str, display_name: str, limits: YamlLimits = DEFAULT_LIMITS) -> YamlDocument:
    if len(text) > limits.max_bytes:
        raise _too_large(display_name, limits.max_bytes)
    _check_shape(text, display_name, limits)
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return YamlDocument(display_name, None)
        builder = _Builder(display_name, loader)
        data = builder.build(root, ())
        return YamlDocument(display_name, data, builder.values, builder.keys)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, display_name) from exc
    except yaml.YAMLError as exc:
        raise ManifestError(f"invalid YAML: {exc}", where=display_name, hint=_YAML_HINT) from exc
    finally:
        loader.dispose()


_DEPTH_HINT = "manifests need a few levels: flatten the lists and mappings"
_YAML_HINT = "fix the YAML syntax (indentation, quoting, a missing ':' or closing bracket)"


def _check_shape(text: str, display_name: str, limits: YamlLimits) -> None:
    """Refuse too deep or too large (alias-expanded) documents from the event stream alone."""
    scan = _ShapeScan(display_name, limits)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            scan.add(event)
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):  # PyYAML >= 6.0.4 scans deep flow first
            mark = exc.problem_mark or exc.context_mark
            where = str(_mark(display_name, mark)) if mark is not None else display_name
            raise ManifestError(
                f"nesting deeper than {limits.max_depth} levels", where=where, hint=_DEPTH_HINT
            ) from exc
        raise _syntax_error(exc, display_name) from exc
    except yaml.YAMLError as exc:
        raise ManifestError(f"invalid YAML: {exc}", where=display_name, hint=_YAML_HINT) from exc


class _ShapeScan:
    """Depth and value count of a document, event by event, without building it.

    Every open list or mapping counts the values it holds; closing one records that count
    for its anchor, so an alias adds its anchor's full size: an expansion is measured, never
    materialized. Stops at the first event past a limit, so a hostile file costs at most
    ``max_values`` events.
    """

    def __init__(self, display_name: str, limits: YamlLimits) -> None:
        self.display_name = display_name
        self.limits = limits
        self.anchored: dict[str, int] = {}
        self.open: list[tuple[str | None, int]] = []
        self.total = 0
        self.through_aliases = 0

    def add(self, event: yaml.Event) -> None:
        if isinstance(event, _OPENING_EVENTS):
            self._open(event)
        elif isinstance(event, _CLOSING_EVENTS):
            anchor, size = self.open.pop()
            self._remember(anchor, size)
            self._count_in_parent(size)
        elif isinstance(event, yaml.ScalarEvent):
            self._remember(event.anchor, 1)
            self._count_in_parent(1)
            self._count_total(1, event)
        elif isinstance(event, yaml.AliasEvent):
            size = self.anchored.get(str(event.anchor), 1)
            self.through_aliases += size
            self._count_in_parent(size)
            self._count_total(size, event)

    def _open(self, event: yaml.Event) -> None:
        if len(self.open) >= self.limits.max_depth:
            raise _shape_error(
                f"nesting deeper than {self.limits.max_depth} levels",
                self.display_name,
                event,
                _DEPTH_HINT,
            )
        self.open.append((getattr(event, "anchor", None), 1))
        self._count_total(1, event)

    def _remember(self, anchor: str | None, size: int) -> None:
        if anchor is not None:
            self.anchored[anchor] = size

    def _count_in_parent(self, size: int) -> None:
        if self.open:
            anchor, held = self.open[-1]
            self.open[-1] = (anchor, held + size)

    def _count_total(self, size: int, event: yaml.Event) -> None:
        self.total += size
        if self.total > self.limits.max_values:
            raise _too_many_values(self.display_name, event, self.limits.max_values, self.through_aliases)


def _too_many_values(
    display_name: str, event: yaml.Event, max_values: int, through_aliases: int
) -> ManifestError:
    if isinstance(event, yaml.AliasEvent):
        message = f"aliases expand the document past {max_values} values (alias '*{event.anchor}')"
    elif through_aliases:
        message = (
            f"more than {max_values} values in one file, {through_aliases} of them copies made by aliases"
        )
    else:
        message = f"more than {max_values} values in one file"
    hint = (
        "an anchor/alias chain that multiplies values is refused: write the values out or use fewer aliases"
        if through_aliases
        else "split the tables over several manifest files"
    )
    return _shape_error(message, display_name, event, hint)


def _shape_error(message: str, display_name: str, event: yaml.Event, hint: str) -> ManifestError:
    return ManifestError(message, where=str(_mark(display_name, event.start_mark)), hint=hint)


def _syntax_error(exc: yaml.MarkedYAMLError, display_name: str) -> ManifestError:
    mark = exc.problem_mark or exc.context_mark
    where = str(_mark(display_name, mark)) if mark is not None else display_name
    problem = " ".join(part for part in (exc.context, exc.problem) if part)
    return ManifestError(f"invalid YAML: {problem or 'syntax error'}", where=where, hint=_YAML_HINT)


def _mark(file: str, mark: Any) -> Mark:
    return Mark(file, int(mark.line) + 1, int(mark.column) + 1)


class _Builder:
    def __init__(self, file: str, loader: Any) -> None:
        self.file = file
        self.loader = loader
        self.values: dict[Path_, tuple[int, int]] = {}
        self.keys: dict[Path_, tuple[int, int]] = {}

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.values[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if not isinstance(node, yaml.ScalarNode) and node.tag not in _COLLECTION_TAGS:
            raise ManifestError(
                f"invalid YAML: unsupported tag '{node.tag}'",
                where=str(_mark(self.file, node.start_mark)),
                hint="remove the tag: manifests are plain YAML (mappings, lists, text, numbers, booleans)",
            )
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
        return self._scalar(node)

    def _scalar(self, node: yaml.Node) -> Any:
        if node.tag in _TEXT_TAGS:
            return str(node.value)
        try:
            return self.loader.construct_object(node, deep=True)
        except ValueError as exc:  # e.g. an integer of more digits than Python converts
            raise ManifestError(
                f"invalid value: {exc}",
                where=str(_mark(self.file, node.start_mark)),
                hint="write a shorter number, or quote the value to keep it as text",
            ) from None

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        result: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.update(self._merge_source(value_node, path))
                continue
            key = self._key(key_node)
            if key in result:
                first_line = self.keys[(*path, key)][0]
                raise ManifestError(
                    f"duplicate key '{key}' (first at line {first_line})",
                    where=str(_mark(self.file, key_node.start_mark)),
                    hint="YAML keeps only one value per key: remove or rename one of them",
                )
            self.keys[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            result[key] = self.build(value_node, (*path, key))
        return {**merged, **result}

    def _merge_source(self, node: yaml.Node, path: Path_) -> Mapping[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        own_mark = self.values[path]
        for source in reversed(sources):
            value = self.build(source, path)
            if not isinstance(value, dict):
                raise ManifestError(
                    "a '<<' merge key needs a mapping (or a list of mappings)",
                    where=str(_mark(self.file, source.start_mark)),
                    hint="merge an anchored mapping: '<<: *defaults'",
                )
            merged.update(value)
        self.values[path] = own_mark
        return merged

    def _key(self, node: yaml.Node) -> str:
        if not isinstance(node, yaml.ScalarNode):
            raise ManifestError(
                "a mapping key must be a plain value, not a list or mapping",
                where=str(_mark(self.file, node.start_mark)),
                hint="write keys as plain words, e.g. 'commits_retained: 10'",
            )
        value = self._scalar(node)
        return (
            value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
        )
