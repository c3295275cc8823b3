"""Safe YAML loading that remembers where every key and value came from.

PyYAML's composer gives nodes with marks; we build plain Python values from them
(only the safe scalar types) and record, per path from the document root, the
line and column of the value and of its key. Duplicate keys are an error, not a
silent overwrite. Timestamps stay strings (instant times and dates are text here).
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


def load_yaml_file(path: Path, display_name: str) -> YamlDocument:
    """Read and parse one YAML file; every failure is a ManifestError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ManifestError(
            "file not found", where=display_name, hint="check the path and the project folder"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(
            f"cannot read file: {exc}", where=display_name, hint="the file must be readable UTF-8 text"
        ) from exc
    return load_yaml_text(text, display_name)


def load_yaml_text(text: str, display_name: str) -> YamlDocument:
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


_YAML_HINT = "fix the YAML syntax (indentation, quoting, a missing ':' or closing bracket)"


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
        return self.loader.construct_object(node, deep=True)

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
