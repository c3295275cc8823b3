"""The project file, defaults blocks, manifests and the resolved TableSpec, as typed frozen models.

``TableEntry`` is one table as written in a manifest (every service block optional);
``TableSpec`` is the same table after inheritance, rendering and validation, with
each service either active (its typed spec) or ``None``.

The service blocks are not written here: each service declares its block's settings model
(``ServiceDeclaration.settings``), and :func:`project_models` derives, for the installed
catalog, the models with one optional field per block (``DefaultsBlock``, ``TableEntry``,
``TableSpec``, and ``ManifestFile`` and ``ProjectConfig`` holding them). The classes here are
their static types; :meth:`TableSpec.settings_of` reads a block by its settings model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, create_model, field_validator

from maintainer.catalog import Catalog, installed
from maintainer.project.gates import ByteSize, GatesSpec
from maintainer.project.objectives import ObjectivesSpec
from maintainer.project.readers import ReaderSpec
from maintainer.project.settings_types import FrozenModel

TABLE_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]*$"
TableName = Annotated[str, Field(pattern=TABLE_NAME_PATTERN, max_length=200)]
Tag = Annotated[str, Field(min_length=1, pattern=r"^[^\s,:+@]+$")]
MetadataTablePolicy = Literal["sync", "drop", "refuse"]
"""What maintainer does about a table's metadata table: keep it in sync (the default for table
versions 8 and 9), drop it first, or refuse to maintain the table (the default for version 6,
whose metadata table no independent reader here can verify)."""


STATE_SCHEMES = ("s3", "s3a", "gs", "gcs", "file")
"""Where ``state:`` may point (besides a plain folder): stores with conditional writes."""


def check_state_location(value: str | None) -> str | None:
    """``state:``: empty (the default), a folder, or an s3://, gs:// (or file://) prefix."""
    if value is None or not value.strip():
        return value
    scheme, sep, _ = value.strip().partition("://")
    if sep and scheme.lower() not in STATE_SCHEMES:
        raise ValueError(
            f"{value!r}: {scheme}:// has no conditional writes; give a folder or an "
            "s3://, gs:// prefix (the state is merged under conditional writes)"
        )
    return value


S = TypeVar("S", bound=BaseModel)


class _WithServiceBlocks(FrozenModel):
    """A model whose service blocks are fields of a class made at run time (:func:`project_models`):
    pickled by its fields and made again with the model of the installed catalog."""

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self).__name__, dict(self), self.model_fields_set)


def _rebuild(name: str, values: dict[str, Any], fields_set: set[str]) -> BaseModel:
    model: type[BaseModel] = getattr(project_models(), _MODEL_OF[name])
    return model.model_construct(fields_set, **values)


_MODEL_OF = {
    "DefaultsBlock": "defaults",
    "TableEntry": "entry",
    "TableSpec": "spec",
    "ManifestFile": "manifest",
    "ProjectConfig": "config",
}


def default_metadata_policy(table_version: int) -> MetadataTablePolicy:
    return "sync" if table_version >= 8 else "refuse"


class DefaultsBlock(_WithServiceBlocks):
    """Settings inherited by tables: project ``defaults`` and a folder's ``_defaults.yml``."""

    version: Literal[1] | None = None
    tags: tuple[Tag, ...] = ()
    """Tags added to every table below (tags accumulate)."""
    metadata_table: MetadataTablePolicy | None = None
    gates: GatesSpec | None = None
    """Limits a plan node must stay under (max_delete_files, max_delete_bytes, max_compaction_bytes)."""
    readers: tuple[ReaderSpec, ...] | None = None
    """Who reads the table and how far back: a clean or archive that would remove what one of
    them still needs is planned blocked, naming the reader."""
    owner: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    """Who answers for the table (a team or a person): ``maintainer status`` groups by it."""
    slo: ObjectivesSpec | None = None
    """Objectives ``maintainer status`` checks (max_log_files_per_slice, max_pending_age,
    max_small_file_share, max_active_instants, max_since_clean)."""


class TableEntry(_WithServiceBlocks):
    """One table in a manifest."""

    name: TableName
    """Unique in the project; used by --select and depends_on."""
    path: Annotated[str, Field(min_length=1)]
    """Base path (URI) of the Hudi table."""
    description: str = ""
    tags: tuple[Tag, ...] = ()
    depends_on: tuple[TableName, ...] = ()
    """Tables whose maintenance must finish before this table's starts."""
    metadata_table: MetadataTablePolicy | None = None
    """What to do when the table has a metadata table: sync it, drop it, or refuse to maintain the
    table (default: sync for table versions 8 and 9, refuse for version 6)."""
    gates: GatesSpec | None = None
    """Limits a plan node must stay under (max_delete_files, max_delete_bytes, max_compaction_bytes)."""
    readers: tuple[ReaderSpec, ...] | None = None
    """Who reads the table and how far back: a clean or archive that would remove what one of
    them still needs is planned blocked, naming the reader."""
    owner: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    """Who answers for the table (a team or a person): ``maintainer status`` groups by it."""
    slo: ObjectivesSpec | None = None
    """Objectives ``maintainer status`` checks (max_log_files_per_slice, max_pending_age,
    max_small_file_share, max_active_instants, max_since_clean)."""


class ManifestFile(_WithServiceBlocks):
    """A manifest file: ``version: 1`` and a list of tables."""

    version: Literal[1]
    tables: list[TableEntry] = Field(default_factory=list)


class BudgetSpec(FrozenModel):
    """The fleet's budget for one plan."""

    compaction_bytes: ByteSize | None = None
    """At most this many bytes read by all of a plan's compactions (e.g. 200GiB): the slices worth
    most per byte read (log bytes removed from every read per byte read) are taken first, the
    others deferred to a later plan and listed in plan.md."""


class ProjectConfig(_WithServiceBlocks):
    """``maintainer_project.yml``."""

    name: Annotated[str, Field(pattern=TABLE_NAME_PATTERN)]
    version: Literal[1]
    profile: Annotated[str, Field(min_length=1)]
    """The profile (in profiles.yml) that says where and how to run."""
    manifest_paths: tuple[str, ...] = ("tables",)
    """Folders (relative to the project) searched for manifests (*.yml, *.yaml)."""
    target_path: str = "target"
    """Where compile and plan write their artifacts."""
    state: str | None = None
    """Where apply keeps the last applied manifest of each table and the run history: a folder
    (relative to the project) or an object-store prefix (s3://bucket/prefix, gs://...), read
    with the target's storage_options. Default (unset or empty): target_path. A profile target's
    own ``state`` overrides it."""
    vars: dict[str, Any] = Field(default_factory=dict)
    """Values for var() in manifests (their strings may use env_var()); --vars overrides them."""
    defaults: DefaultsBlock = DefaultsBlock()
    budget: BudgetSpec | None = None
    """What one plan may take on across the fleet (``compaction_bytes``: bytes its compactions
    read); ``plan --budget-bytes`` overrides it."""

    _state_location = field_validator("state")(check_state_location)


OMITTED_WHILE_UNSET = ("owner", "slo")
"""TableSpec fields added after manifest.json format 1 (see :meth:`TableSpec.as_json`)."""
FORMAT_1_BLOCKS = frozenset({"rollback", "compaction", "clean", "metadata", "archive", "savepoints"})
"""The service blocks manifest.json format 1 wrote, set or not: a block added since (a new
service's) is left out while unset, as :data:`OMITTED_WHILE_UNSET` are."""


class TableSpec(_WithServiceBlocks):
    """A table after inheritance and validation; a service is None when it does not run."""

    name: str
    path: str
    manifest: str
    """The manifest file, relative to the project directory."""
    line: int
    description: str = ""
    tags: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    metadata_table: MetadataTablePolicy | None = None
    """None: the default of the table's version (:func:`default_metadata_policy`)."""
    gates: GatesSpec | None = None
    """Limits a plan node must stay under (max_delete_files, max_delete_bytes, max_compaction_bytes)."""
    readers: tuple[ReaderSpec, ...] | None = None
    """Who reads the table and how far back: a clean or archive that would remove what one of
    them still needs is planned blocked, naming the reader."""
    owner: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    """Who answers for the table (a team or a person): ``maintainer status`` groups by it."""
    slo: ObjectivesSpec | None = None
    """Objectives ``maintainer status`` checks (max_log_files_per_slice, max_pending_age,
    max_small_file_share, max_active_instants, max_since_clean)."""

    def as_json(self, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
        """The spec as JSON values (manifest.json, checksums, the review); the fields added after
        manifest.json format 1 (and the blocks of services added since) are left out while
        unset, so that the checksums and specs kept by earlier versions still compare equal."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude=set(exclude))
        added = (block for block in installed().blocks if block not in FORMAT_1_BLOCKS)
        for name in (*OMITTED_WHILE_UNSET, *added):
            if data.get(name, ...) is None:
                del data[name]
        return data

    def metadata_policy(self, table_version: int) -> MetadataTablePolicy:
        return self.metadata_table or default_metadata_policy(table_version)

    @classmethod
    def of(cls, **values: Any) -> TableSpec:
        """A spec validated with the installed catalog's service blocks (``clean=CleanSpec()``)."""
        return project_models().spec(**values)

    def settings_of(self, settings: type[S]) -> S | None:
        """The block whose settings model is ``settings`` (None: the service does not run)."""
        value = getattr(self, installed().block_of(settings), None)
        return value if isinstance(value, settings) else None

    def services(self) -> dict[str, BaseModel]:
        """The active service blocks, in execution order."""
        active: dict[str, BaseModel] = {}
        for block in installed().blocks:
            spec = getattr(self, block)
            if spec is not None:
                active[block] = spec
        return active

    @property
    def location(self) -> str:
        return f"{self.manifest}:{self.line}"


@dataclass(frozen=True, slots=True)
class ProjectModels:
    """The project's models with the service blocks of one catalog."""

    defaults: type[DefaultsBlock]
    entry: type[TableEntry]
    spec: type[TableSpec]
    manifest: type[ManifestFile]
    config: type[ProjectConfig]


def project_models() -> ProjectModels:
    """The models of the installed catalog."""
    return _project_models(installed())


@lru_cache(maxsize=4)
def _project_models(catalog: Catalog) -> ProjectModels:
    blocks: dict[str, Any] = {block: (model | None, None) for block, model in catalog.settings.items()}
    defaults = _with(DefaultsBlock, blocks)
    entry = _with(TableEntry, blocks)
    manifest = _with(ManifestFile, {"tables": (list[entry], Field(default_factory=list))})  # type: ignore[valid-type]
    config = _with(ProjectConfig, {"defaults": (defaults, defaults())})
    return ProjectModels(defaults, entry, _with(TableSpec, blocks), manifest, config)


M = TypeVar("M", bound=BaseModel)


def _with(model: type[M], fields: dict[str, Any]) -> type[M]:
    """``model`` with ``fields`` added (or given another type)."""
    return create_model(model.__name__, __base__=model, __doc__=model.__doc__, __module__=__name__, **fields)
