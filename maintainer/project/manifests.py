"""Finding manifests and folder defaults under the project's ``manifest_paths``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from maintainer.errors import ManifestError
from maintainer.project.yamlsrc import Mark, YamlDocument, load_yaml_file

DEFAULTS_FILE = "_defaults.yml"
MANIFEST_SUFFIXES = (".yml", ".yaml")


@dataclass(frozen=True, slots=True)
class ManifestFileRef:
    """A manifest on disk, its name relative to the project, and its folder-defaults chain."""

    path: Path
    name: str
    defaults_dirs: tuple[Path, ...]


def discover_manifests(root: Path, manifest_path: str, where: Mark) -> list[ManifestFileRef]:
    """The manifests under one entry of ``manifest_paths`` (a folder or a single file), sorted."""
    base = (root / manifest_path).resolve()
    if not base.exists():
        raise ManifestError(
            f"manifest path '{manifest_path}' does not exist",
            where=str(where),
            hint=f"create the folder {base} or fix manifest_paths",
        )
    if base.is_file():
        return [ManifestFileRef(base, _relative(base, root), ())]
    return [
        ManifestFileRef(path, _relative(path, root), _defaults_chain(base, path.parent))
        for path in _walk(base)
    ]


def _walk(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix in MANIFEST_SUFFIXES and not path.name.startswith("_") and path.is_file():
            yield path


def _defaults_chain(base: Path, folder: Path) -> tuple[Path, ...]:
    chain = [folder, *folder.parents]
    inside = [directory for directory in chain if directory == base or base in directory.parents]
    return tuple(directory for directory in reversed(inside) if (directory / DEFAULTS_FILE).is_file())


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass
class DocumentCache:
    """Each YAML file is parsed once, however many manifests share its folder defaults."""

    root: Path
    documents: dict[Path, YamlDocument] = field(default_factory=dict)

    def load(self, path: Path) -> YamlDocument:
        document = self.documents.get(path)
        if document is None:
            document = load_yaml_file(path, _relative(path, self.root))
            self.documents[path] = document
        return document
