"""Load a project: project file, profile target, manifests -> validated TableSpecs.

Nothing here touches a table: the project loads when table paths do not exist.
Every problem is a ManifestError with file:line[:col] and a hint; problems in
independent tables are collected and reported together.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from maintainer.catalog import installed
from maintainer.errors import ManifestError
from maintainer.project.inheritance import Layer, Provenance, leaf_paths, merge_layers
from maintainer.project.issues import did_you_mean, raise_all, validation_error
from maintainer.project.manifests import DEFAULTS_FILE, DocumentCache, ManifestFileRef, discover_manifests
from maintainer.project.models import ManifestFile, ProjectConfig, TableEntry, TableSpec, project_models
from maintainer.project.profiles import Target, load_target
from maintainer.project.rules import check_table_rules
from maintainer.project.templating import Renderer, blame_cli_vars
from maintainer.project.yamlsrc import YamlDocument, load_yaml_file

PROJECT_FILE = "maintainer_project.yml"


@dataclass(frozen=True)
class Project:
    """A loaded, validated project."""

    root: Path
    config: ProjectConfig
    target: Target
    tables: tuple[TableSpec, ...]
    manifests: tuple[str, ...]
    provenance: Mapping[str, Provenance] = field(default_factory=dict, repr=False)

    @cached_property
    def tables_by_name(self) -> dict[str, TableSpec]:
        return {spec.name: spec for spec in self.tables}

    def table(self, name: str) -> TableSpec:
        return self.tables_by_name[name]

    def sources(self, name: str) -> dict[str, str]:
        """For each option of table ``name``: the file:line:col that set it, ``default`` (Hudi's),
        or ``inferred from <file:line:col>`` (an option a service infers from the one other option
        given: ``ServiceDeclaration.inferred``, e.g. the clean policy from its *_retained)."""
        provenance = self.provenance[name]
        resolved = self.table(name).model_dump(exclude={"manifest", "line"}, exclude_none=True)
        sources = {".".join(map(str, path)): provenance.source(path) for path in leaf_paths(resolved)}
        for option, options in installed().inferred.items():
            if sources.get(option) == "default":
                parent = tuple(option.split(".")[:-1])
                given = [(*parent, key) for key in options if provenance.is_set((*parent, key))]
                if len(given) == 1:
                    sources[option] = f"inferred from {provenance.mark(given[0])}"
        return sources

    def location(self, table: str, path: tuple[str | int, ...]) -> str:
        """Where the value at ``path`` of ``table`` was written (file:line:col)."""
        return str(self.provenance[table].mark(path))

    @property
    def target_dir(self) -> Path:
        return self.root / self.config.target_path

    @property
    def state_location(self) -> str:
        """Where apply keeps the last applied state: the target's ``state``, else the
        project's, else target_path; a folder is relative to the project."""
        location = (self.target.settings.state or self.config.state or "").strip()
        if not location:
            return str(self.target_dir)
        if "://" in location:
            return location
        return str(self.root / location)


def load_project(
    project_dir: Path | str = ".",
    *,
    target: str | None = None,
    cli_vars: Mapping[str, Any] | None = None,
    profiles_dir: Path | None = None,
) -> Project:
    """The project; an error at a place whose template read a --vars value is blamed on --vars."""
    cli_uses: dict[str, set[str]] = {}
    try:
        return _load_project(
            Path(project_dir).resolve(), target, dict(cli_vars or {}), cli_uses, profiles_dir
        )
    except ManifestError as exc:
        blamed = blame_cli_vars(exc, cli_uses, dict(cli_vars or {}))
        if blamed is exc:
            raise
        raise blamed from None


def _load_project(
    root: Path,
    target: str | None,
    cli_vars: dict[str, Any],
    cli_uses: dict[str, set[str]],
    profiles_dir: Path | None,
) -> Project:
    document = _load_project_document(root)
    config, rendered, renderer, chosen = _load_config(
        root, document, target, cli_vars, cli_uses, profiles_dir
    )
    refs = _manifest_refs(root, document, config)
    defaults = rendered.get("defaults")
    project_layer = Layer(document, ("defaults",), defaults if isinstance(defaults, dict) else {})
    tables, provenance, errors, unresolved = _load_tables(refs, project_layer, DocumentCache(root), renderer)
    errors.extend(_cross_table_errors(tables, provenance, unresolved))
    raise_all(errors)
    return Project(root, config, chosen, tuple(tables), tuple(ref.name for ref in refs), provenance)


def _load_project_document(root: Path) -> YamlDocument:
    path = root / PROJECT_FILE
    if not path.is_file():
        raise ManifestError(
            f"no {PROJECT_FILE} in {root}",
            where=str(root),
            hint="run 'maintainer init' to create a project, or pass --project-dir",
        )
    document = load_yaml_file(path, PROJECT_FILE)
    if not isinstance(document.data, dict):
        raise ManifestError(
            f"{PROJECT_FILE} must be a mapping",
            where=str(document.mark(())),
            hint="start with 'name:', 'version: 1' and 'profile:'",
        )
    return document


def _load_config(
    root: Path,
    document: YamlDocument,
    target: str | None,
    cli_vars: dict[str, Any],
    cli_uses: dict[str, set[str]],
    profiles_dir: Path | None,
) -> tuple[ProjectConfig, dict[str, Any], Renderer, Target]:
    """The validated project file, its rendered data, the renderer and the chosen target."""
    data = document.data
    if not isinstance(data.get("profile"), str) or not isinstance(data.get("vars", {}), dict):
        _validate_config(document, data)
    project_vars = Renderer({}).render_tree(document, data.get("vars") or {}, ("vars",))  # env_var() only
    renderer = Renderer({**project_vars, **cli_vars}, cli_vars=cli_vars, cli_uses=cli_uses)
    profile_mark = str(document.mark(("profile",)))
    chosen = load_target(root, data["profile"], target, renderer, profile_mark, profiles_dir)
    renderer = renderer.with_target(chosen.jinja_context())
    rendered = renderer.render_tree(document, data, (), skip=frozenset({"vars", "profile"}))
    return _validate_config(document, rendered), rendered, renderer, chosen


def _validate_config(document: YamlDocument, data: Any) -> ProjectConfig:
    try:
        return project_models().config.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, document, (), PROJECT_FILE, project_models().config) from None


def _manifest_refs(root: Path, document: YamlDocument, config: ProjectConfig) -> list[ManifestFileRef]:
    """Every manifest under ``manifest_paths``, each once, in the order found."""
    unique: dict[Path, ManifestFileRef] = {}
    for index, manifest_path in enumerate(config.manifest_paths):
        for ref in discover_manifests(root, manifest_path, document.mark(("manifest_paths", index))):
            unique.setdefault(ref.path, ref)
    return list(unique.values())


def _load_tables(
    refs: list[ManifestFileRef], project_layer: Layer, cache: DocumentCache, renderer: Renderer
) -> tuple[list[TableSpec], dict[str, Provenance], list[ManifestError], set[str] | None]:
    """The tables, their provenance, the errors, and the names of the entries that had an error
    (None: a whole manifest had one, so any table may be among them)."""
    tables: list[TableSpec] = []
    provenance: dict[str, Provenance] = {}
    errors: list[ManifestError] = []
    unresolved: set[str] | None = set()
    folder_layers: dict[Path, Layer] = {}
    for ref in refs:
        try:
            layers = [
                project_layer,
                *(_folder_layer(d, cache, renderer, folder_layers) for d in ref.defaults_dirs),
            ]
            document, entries = _manifest_entries(cache.load(ref.path), renderer)
        except ManifestError as exc:
            errors.append(exc)
            unresolved = None
            continue
        for index, entry in enumerate(entries):
            try:
                spec, prov = _resolve_table(ref, document, index, entry, layers)
            except ManifestError as exc:
                errors.append(exc)
                name = entry.get("name") if isinstance(entry, dict) else None
                if unresolved is not None and isinstance(name, str):
                    unresolved.add(name)
                continue
            if spec.name not in provenance:
                provenance[spec.name] = prov
            tables.append(spec)
            errors.extend(check_table_rules(spec, prov))
    return tables, provenance, errors, unresolved


def _folder_layer(folder: Path, cache: DocumentCache, renderer: Renderer, known: dict[Path, Layer]) -> Layer:
    if folder in known:
        return known[folder]
    document = cache.load(folder / DEFAULTS_FILE)
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise ManifestError(
            f"{DEFAULTS_FILE} must be a mapping",
            where=str(document.mark(())),
            hint="give tags, metadata_table and service blocks (clean:, archive:, ...)",
        )
    rendered = renderer.render_tree(document, data, ())
    try:
        project_models().defaults.model_validate(_blocks_present(rendered))
    except ValidationError as exc:
        raise validation_error(exc, document, (), DEFAULTS_FILE, project_models().defaults) from None
    known[folder] = Layer(document, (), rendered)
    return known[folder]


def _manifest_entries(document: YamlDocument, renderer: Renderer) -> tuple[YamlDocument, list[Any]]:
    data = document.data
    if not isinstance(data, dict):
        raise ManifestError(
            "a manifest must be a mapping with 'version: 1' and 'tables:'",
            where=str(document.mark(())),
            hint="start the file with 'version: 1' and 'tables:'",
        )
    for key in data:
        if key not in ManifestFile.model_fields:
            raise ManifestError(
                f"unknown top-level key '{key}'",
                where=str(document.key_mark((key,))),
                hint=did_you_mean(key, ManifestFile.model_fields, "keys"),
            )
    if data.get("version") != 1:
        where = document.mark(("version",)) if "version" in data else document.mark(())
        raise ManifestError(
            f"manifest version must be 1 (got {data.get('version')!r})",
            where=str(where),
            hint="add 'version: 1' at the top of the file",
        )
    tables = data.get("tables") or []
    if not isinstance(tables, list):
        raise ManifestError(
            "'tables' must be a list of tables",
            where=str(document.mark(("tables",))),
            hint="write each table as a list item: '- name: ...'",
        )
    return document, renderer.render_tree(document, tables, ("tables",))


def _resolve_table(
    ref: ManifestFileRef, document: YamlDocument, index: int, entry: Any, layers: list[Layer]
) -> tuple[TableSpec, Provenance]:
    table_mark = document.mark(("tables", index))
    if not isinstance(entry, dict):
        raise ManifestError(
            "a table must be a mapping with at least name and path",
            where=str(table_mark),
            hint="write '- name: my_table' then 'path: s3://...' indented below it",
        )
    provenance = merge_layers([*layers, Layer(document, ("tables", index), entry)], table_mark)
    context = f"table '{entry.get('name', f'#{index + 1}')}'"
    try:
        validated = project_models().entry.model_validate(provenance.merged)
    except ValidationError as exc:
        raise validation_error(exc, provenance, (), context, project_models().entry) from None
    return _to_spec(validated, ref.name, table_mark.line), provenance


def _to_spec(entry: TableEntry, manifest: str, line: int) -> TableSpec:
    values = dict(entry)
    for block in installed().blocks:
        spec = values[block]
        if spec is not None and not spec.enabled:
            values[block] = None
    return project_models().spec.model_construct(manifest=manifest, line=line, **values)


def _blocks_present(data: dict[str, Any]) -> dict[str, Any]:
    """A defaults block with empty service blocks (``clean:``) as empty mappings."""
    return {
        key: {} if value is None and key in project_models().entry.model_fields else value
        for key, value in data.items()
    }


def table_location_key(path: str) -> str:
    """The place a table path names: a local path without ``file://``, with ``~`` expanded,
    made absolute and every symbolic link on the way resolved (a folder linked into two places
    is one table; the parts that do not exist yet are taken as written); a remote URI without
    trailing ``/``, ``s3a://`` read as ``s3://`` (object stores have no links). Two entries with
    the same key would maintain one table twice."""
    if "://" not in path or path.startswith("file://"):
        local = path[len("file://") :] if path.startswith("file://") else path
        return "file://" + os.path.realpath(os.path.expanduser(local))
    scheme, rest = path.split("://", 1)
    scheme = scheme.lower()
    return f"{'s3' if scheme == 's3a' else scheme}://{rest.rstrip('/')}"


def _duplicate_path_errors(tables: list[TableSpec]) -> list[ManifestError]:
    errors: list[ManifestError] = []
    first: dict[str, TableSpec] = {}
    for spec in tables:
        key = table_location_key(spec.path)
        earlier = first.setdefault(key, spec)
        if earlier is spec:
            continue
        errors.append(
            ManifestError(
                f"tables '{earlier.name}' ({earlier.location}, path {earlier.path!r}) and "
                f"'{spec.name}' ({spec.location}, path {spec.path!r}) are the same table ({key})",
                where=spec.location,
                hint=f"keep one entry for the table: remove '{spec.name}' or merge it into '{earlier.name}'",
            )
        )
    return errors


def _cross_table_errors(
    tables: list[TableSpec], provenance: dict[str, Provenance], unresolved: set[str] | None
) -> list[ManifestError]:
    """Duplicate names and paths, and dependencies on no table. A dependency on a table whose
    entry had an error of its own (``unresolved``; None: any table) is that error, told once."""
    errors = _duplicate_path_errors(tables)
    first: dict[str, TableSpec] = {}
    for spec in tables:
        if spec.name in first:
            errors.append(
                ManifestError(
                    f"duplicate table name '{spec.name}' (first defined at {first[spec.name].location})",
                    where=spec.location,
                    hint="table names must be unique in the project: rename one of them",
                )
            )
        else:
            first[spec.name] = spec
    for spec in first.values():
        for index, dependency in enumerate(spec.depends_on):
            where = str(provenance[spec.name].mark(("depends_on", index)))
            if dependency == spec.name:
                errors.append(
                    ManifestError(
                        f"table '{spec.name}' depends on itself",
                        where=where,
                        hint="remove it from its own depends_on",
                    )
                )
            elif dependency not in first and unresolved is not None and dependency not in unresolved:
                errors.append(
                    ManifestError(
                        f"table '{spec.name}' depends on unknown table '{dependency}'",
                        where=where,
                        hint=did_you_mean(dependency, first, "tables"),
                    )
                )
    return errors
