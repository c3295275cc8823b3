"""``manifest.json`` as typed records: what ``maintainer compile`` (and ``plan``, into the plan
directory) writes, and the last applied state apply keeps (``last_applied/manifest.json``).

One source for the file: the writer dumps a :class:`CompiledManifest`, its JSON Schema
(``schemas/manifest_json.v1.json``, ``maintainer.graph.manifest_schema``) is generated from these
records, and every reader (``--state`` for ``state:`` selection, the review's manifest changes,
the state backend) reads through them strictly: an unknown field, a missing one or a value of
the wrong type is an error naming the file, the field and what to do (:func:`parse_manifest`),
never a silent default.

The compiled file (shaped like dbt's manifest.json):

- ``metadata``: ``maintainer_schema_version`` (the schema's URL), ``maintainer_version``,
  ``generated_at`` (UTC, ISO-8601 with ``Z``), ``invocation_id`` (a uuid4), ``project_name``
  (and ``project``, the same), ``profile``, ``target``, ``threads`` and the manifest files read;
- ``nodes``: by ``unique_id`` (``table.<project>.<table>.<service>``), each selected node;
- ``tables``: by name, each selected table's resolved ``spec``, the ``sources`` of its values and
  its ``checksum`` (``maintainer.graph.state``), which ``--state DIR`` compares;
- ``graph``: the selected graph as ``maintainer graph --format json`` prints it.

The applied state (:class:`AppliedState`): ``metadata`` of the newest applied plan's
manifest.json, its ``tables`` (each entry of the plan's manifest.json plus ``applied``: which
apply kept it) and ``applied`` (the newest apply). ``--state DIR`` takes either file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar, Final, Literal, TypeVar, Union

from pydantic import (
    AfterValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetJsonSchemaHandler,
    Tag,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, ErrorDetails

from maintainer.catalog import installed
from maintainer.errors import MaintainerError

MANIFEST_JSON = "manifest.json"
MANIFEST_SCHEMA_FILE = "manifest_json.v1.json"
MANIFEST_SCHEMA_VERSION: Final = "https://maintainer.dev/schemas/manifest_json/v1.json"
"""``metadata.maintainer_schema_version``: names schemas/manifest_json.v1.json (its ``$id``)."""
CHECKSUM_NAME: Final = "sha256"
MAX_PROBLEMS_SHOWN = 5

_FILE_CONFIG = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)
"""Every field written and required, no other, no value coerced from another type."""

T = TypeVar("T")

SPEC_LOCATION_FIELDS: dict[str, type] = {"name": str, "path": str, "manifest": str, "line": int}


def _known_service(name: str) -> str:
    known = installed().order
    if name not in known:
        raise ValueError(f"unknown service {name!r} (known: {', '.join(known)})")
    return name


def _located_spec(spec: dict[str, Any]) -> dict[str, Any]:
    for field, kind in SPEC_LOCATION_FIELDS.items():
        value = spec.get(field)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"the spec has no {kind.__name__} '{field}'")
    return spec


class _ServiceNames:
    """The JSON Schema of a service name: the installed catalog's, when the schema is made."""

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"enum": list(installed().order)}


ServiceName = Annotated[str, AfterValidator(_known_service), _ServiceNames()]
"""A service of the installed catalog (``maintainer.catalog.installed().order``)."""
ResolvedSpec = Annotated[
    dict[str, Any],
    AfterValidator(_located_spec),
    WithJsonSchema(
        {
            "type": "object",
            "description": "the resolved table (after inheritance, rendering, Hudi defaults) as "
            "TableSpec writes it; its settings are those of manifest.schema.json",
            "required": list(SPEC_LOCATION_FIELDS),
            "properties": {
                "name": {"type": "string"},
                "path": {"type": "string"},
                "manifest": {"type": "string"},
                "line": {"type": "integer"},
            },
        }
    ),
]
EdgeKind = Literal["order", "depends_on", "implied"]
"""Why an edge is there: the service order in a table, a depends_on, or implied by one."""
UniqueId = Annotated[str, Field(pattern=r"^table\.[^.]+\.[^.]+\.[a-z_]+$")]


@dataclass(frozen=True, slots=True)
class ManifestMetadata:
    """Which maintainer wrote the file, when, for which project, profile and target."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    maintainer_schema_version: Literal["https://maintainer.dev/schemas/manifest_json/v1.json"]
    """The URL of this file's JSON Schema (its $id)."""
    maintainer_version: Annotated[str, Field(min_length=1)]
    generated_at: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")]
    """UTC, ISO-8601 with Z."""
    invocation_id: Annotated[
        str, Field(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
    ]
    """A uuid4 naming this compile."""
    project_name: Annotated[str, Field(min_length=1)]
    project: str
    """The same as project_name (kept for earlier readers)."""
    profile: Annotated[str, Field(min_length=1)]
    target: Annotated[str, Field(min_length=1)]
    threads: Annotated[int, Field(ge=1)]
    manifests: tuple[str, ...]
    """The manifest files read, relative to the project."""


@dataclass(frozen=True, slots=True)
class DependsOn:
    """The nodes a node waits for."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    nodes: tuple[str, ...]
    """Their unique ids, among the selected nodes."""


@dataclass(frozen=True, slots=True)
class ManifestNode:
    """One selected (table, service) node."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    unique_id: str
    """table.<project>.<table>.<service>."""
    name: str
    """<table>.<service>."""
    table: str
    service: ServiceName
    block: str
    """The manifest block that configures the service."""
    mor_only: bool
    tags: tuple[str, ...]
    original_file_path: str
    """The manifest, relative to the project."""
    depends_on: DependsOn


@dataclass(frozen=True, slots=True)
class Checksum:
    """What ``--state`` compares: the sha256 of the resolved spec, shaped as dbt's."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    name: Literal["sha256"]
    checksum: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


@dataclass(frozen=True, slots=True)
class ManifestTable:
    """One selected table: what it resolves to, where each value came from, its checksum."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    spec: ResolvedSpec
    sources: dict[str, str]
    """Option (dotted) -> file:line:col that set it, 'default', or 'inferred from <file:line:col>'."""
    checksum: Checksum


@dataclass(frozen=True, slots=True)
class GraphNode:
    """A node of the graph as ``maintainer graph --format json`` prints it."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    id: str
    """<table>.<service>."""
    table: str
    service: ServiceName
    block: str
    mor_only: bool
    manifest: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """``from`` runs before ``to``: the service order in a table, a depends_on, or implied."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    from_: Annotated[str, Field(alias="from")]
    to: str
    kind: EdgeKind


@dataclass(frozen=True, slots=True)
class GraphJson:
    """The selected graph: nodes, edges and one order that respects them."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    order: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CompiledManifest:
    """target/manifest.json: the resolved project, shaped like dbt's manifest.json."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    metadata: ManifestMetadata
    nodes: dict[UniqueId, ManifestNode]
    tables: dict[str, ManifestTable]
    graph: GraphJson


@dataclass(frozen=True, slots=True)
class Applied:
    """One apply, as the state records it for each table it kept."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    plan_id: str
    applied_at: str
    """UTC, ISO-8601 with milliseconds and Z (sorts as text)."""
    run_id: str
    """``runs/<run_id>/`` in the state backend (empty for an apply of an older maintainer)."""

    def to_json(self) -> dict[str, str]:
        return {"plan_id": self.plan_id, "applied_at": self.applied_at, "run_id": self.run_id}


@dataclass(frozen=True, slots=True)
class AppliedTable:
    """A table of the last applied state: its entry of the applied plan's manifest.json, and
    which apply kept it."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    spec: ResolvedSpec
    sources: dict[str, str]
    checksum: Checksum
    applied: Applied

    @classmethod
    def of(cls, table: ManifestTable, applied: Applied) -> AppliedTable:
        return cls(table.spec, table.sources, table.checksum, applied)


@dataclass(frozen=True, slots=True)
class AppliedState:
    """last_applied/manifest.json of the state backend."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    metadata: ManifestMetadata
    """Of the newest applied plan's manifest.json."""
    tables: dict[str, AppliedTable]
    applied: Applied
    """The newest apply."""


Baseline = Union[CompiledManifest, AppliedState]  # noqa: UP007 (a runtime alias on 3.10)
"""What ``--state DIR`` reads in ``DIR/manifest.json``: a compiled manifest or an applied state."""


def _baseline_kind(data: Any) -> str:
    return "state" if isinstance(data, Mapping) and "applied" in data else "compiled"


@cache
def compiled_adapter() -> TypeAdapter[CompiledManifest]:
    return TypeAdapter(CompiledManifest)


@cache
def graph_adapter() -> TypeAdapter[GraphJson]:
    return TypeAdapter(GraphJson)


@cache
def applied_state_adapter() -> TypeAdapter[AppliedState]:
    return TypeAdapter(AppliedState)


@cache
def _baseline_adapter() -> TypeAdapter[Baseline]:
    kinds = Annotated[
        Annotated[CompiledManifest, Tag("compiled")] | Annotated[AppliedState, Tag("state")],
        Discriminator(_baseline_kind),
    ]
    adapter: TypeAdapter[Baseline] = TypeAdapter(kinds)
    return adapter


@cache
def _legacy_applied_adapter() -> TypeAdapter[LegacyApplied]:
    return TypeAdapter(LegacyApplied)


@dataclass(frozen=True, slots=True)
class LegacyApplied:
    """``last_applied/applied.json`` of an older maintainer: which plan it applied last."""

    __pydantic_config__: ClassVar[ConfigDict] = _FILE_CONFIG

    plan_id: str
    applied_at: str


def _problem(error: ErrorDetails) -> str:
    loc = ".".join(str(part) for part in error["loc"] if part not in ("compiled", "state"))
    if error["type"] == "missing":
        text = "missing"
    elif error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        text = "unknown field"
    elif error["type"] == "value_error":
        text = str(error.get("ctx", {}).get("error", error["msg"]))
    else:
        text = error["msg"]
    return f"{loc or 'the file'}: {text}"


def describe(exc: ValidationError) -> str:
    """The first problems of a validation, each as ``field.path: what is wrong``."""
    errors = exc.errors(include_url=False, include_input=False)
    problems = [_problem(error) for error in errors[:MAX_PROBLEMS_SHOWN]]
    more = len(errors) - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")


def parse_manifest(
    adapter: TypeAdapter[T],
    raw: bytes | str,
    *,
    what: str,
    where: str,
    error: type[MaintainerError],
    hint: str,
) -> T:
    """``raw`` (JSON) as ``adapter``'s record, strictly; anything else is ``error`` saying which
    field is wrong and how, in ``what`` at ``where``."""
    try:
        return adapter.validate_json(raw)
    except ValidationError as exc:
        invalid = [e for e in exc.errors(include_url=False) if e["type"] == "json_invalid"]
        if invalid:
            raise error(f"{what} is not valid JSON: {invalid[0]['msg']}", where=where, hint=hint) from None
        raise error(f"{what} is not a maintainer {MANIFEST_JSON}: {describe(exc)}",
                    where=where, hint=hint) from None  # fmt: skip


def parse_compiled(
    raw: bytes | str, *, what: str, where: str, error: type[MaintainerError], hint: str
) -> CompiledManifest:
    """A compiled manifest.json (``maintainer compile``, a plan directory's)."""
    return parse_manifest(compiled_adapter(), raw, what=what, where=where, error=error, hint=hint)


def parse_baseline(
    raw: bytes | str, *, what: str, where: str, error: type[MaintainerError], hint: str
) -> Baseline:
    """A manifest.json ``--state`` takes: an applied state (it has ``applied``) or a compiled one."""
    return parse_manifest(_baseline_adapter(), raw, what=what, where=where, error=error, hint=hint)


def parse_legacy_applied(
    raw: bytes | str, *, what: str, where: str, error: type[MaintainerError], hint: str
) -> Applied:
    """An older maintainer's applied.json, as the apply it records (it had no run id)."""
    legacy = parse_manifest(_legacy_applied_adapter(), raw, what=what, where=where, error=error, hint=hint)
    return Applied(legacy.plan_id, legacy.applied_at, "")


def legacy_state(manifest: CompiledManifest, applied: Applied) -> AppliedState:
    """An older maintainer's last_applied/ (the applied plans' manifest.json merged, and the
    last apply beside it) as a state: each table kept by that last apply, as far as is known."""
    tables = {name: AppliedTable.of(table, applied) for name, table in manifest.tables.items()}
    return AppliedState(manifest.metadata, tables, applied)


def dump_record(record: CompiledManifest | AppliedState) -> dict[str, Any]:
    """The record as JSON values (the names the file uses: ``from`` for an edge's start)."""
    adapter: TypeAdapter[Any] = (
        compiled_adapter() if isinstance(record, CompiledManifest) else applied_state_adapter()
    )
    data: dict[str, Any] = adapter.dump_python(record, mode="json", by_alias=True)
    return data


def manifest_text(data: Mapping[str, Any]) -> str:
    """The file's text: one line of JSON, sorted keys, and a newline."""
    return json.dumps(data, sort_keys=True) + "\n"
