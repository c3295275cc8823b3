"""Inheritance of settings: project ``defaults`` < folder ``_defaults.yml`` < the table.

Mappings merge key by key (the most specific value wins), ``tags`` accumulate, any
other value replaces. ``Provenance`` remembers which file and line gave each value,
so errors point at the right place and ``compile`` can say where a value came from.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from maintainer.catalog import installed
from maintainer.project.yamlsrc import Mark, Path_, YamlDocument

ACCUMULATED_KEYS = frozenset({"tags"})
NOT_INHERITED_KEYS = frozenset({"version"})


@dataclass(frozen=True, slots=True)
class Layer:
    """A block of settings (already rendered) found at ``path`` inside ``document``."""

    document: YamlDocument
    path: Path_
    data: dict[str, Any]


@dataclass
class Provenance:
    """Where each merged value came from; satisfies the ``Locator`` protocol."""

    merged: dict[str, Any] = field(default_factory=dict)
    origins: dict[Path_, tuple[YamlDocument, Path_]] = field(default_factory=dict)
    key_marks: dict[Path_, Mark] = field(default_factory=dict)
    fallback: Mark = field(default_factory=lambda: Mark("?", 1))

    def mark(self, path: Path_) -> Mark:
        return self._locate(path, key=False)

    def key_mark(self, path: Path_) -> Mark:
        return self.key_marks.get(path) or self._locate(path, key=True)

    def _locate(self, path: Path_, *, key: bool) -> Mark:
        for end in range(len(path), -1, -1):
            origin = self.origins.get(path[:end])
            if origin is not None:
                document, doc_path = origin
                full = (*doc_path, *path[end:])
                return document.key_mark(full) if key else document.mark(full)
        return self.fallback

    def is_set(self, path: Path_) -> bool:
        """True when some layer gave a value at ``path`` (as opposed to a built-in default)."""
        node: Any = self.merged
        for step in path:
            if isinstance(node, dict) and step in node:
                node = node[step]
            else:
                return False
        return True

    def source(self, path: Path_) -> str:
        return str(self.mark(path)) if self.is_set(path) else "default"


def merge_layers(layers: Sequence[Layer], fallback: Mark) -> Provenance:
    """Merge ``layers`` from least to most specific."""
    provenance = Provenance(fallback=fallback)
    for layer in layers:
        data = {key: value for key, value in layer.data.items() if key not in NOT_INHERITED_KEYS}
        _merge_into(provenance.merged, data, layer, (), provenance)
    return provenance


def _merge_into(
    target: dict[str, Any], source: dict[str, Any], layer: Layer, rel: Path_, prov: Provenance
) -> None:
    for key, given in source.items():
        path = (*rel, key)
        prov.key_marks[path] = layer.document.key_mark((*layer.path, *path))
        value = {} if given is None and not rel and key in installed().blocks else given
        existing = target.get(key)
        if not rel and key in ACCUMULATED_KEYS and isinstance(value, list) and isinstance(existing, list):
            target[key] = existing + [item for item in value if item not in existing]
            prov.origins[path] = (layer.document, (*layer.path, *path))
        elif isinstance(value, dict) and isinstance(existing, dict):
            _split_origin(prov, path, existing)
            prov.origins[path] = (layer.document, (*layer.path, *path))
            merged = dict(existing)
            _merge_into(merged, value, layer, path, prov)
            target[key] = merged
        else:
            if isinstance(existing, dict):
                for stale in [
                    known for known in prov.origins if known[: len(path)] == path and known != path
                ]:
                    del prov.origins[stale]
            prov.origins[path] = (layer.document, (*layer.path, *path))
            target[key] = value


def _split_origin(prov: Provenance, path: Path_, existing: dict[str, Any]) -> None:
    """Before a mapping is merged into, pin its current children to where they came from."""
    origin = prov.origins.get(path)
    if origin is None:
        return
    document, doc_path = origin
    for child in existing:
        prov.origins.setdefault((*path, child), (document, (*doc_path, child)))


def leaf_paths(data: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Every path to a non-mapping value in ``data``."""
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from leaf_paths(value, (*prefix, key))
    elif prefix:
        yield prefix
