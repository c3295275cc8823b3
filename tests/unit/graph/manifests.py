"""manifest.json records for tests, built directly from TableSpecs (no project on disk)."""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.graph import build_graph
from maintainer.graph.formats import graph_record
from maintainer.graph.manifest import (
    MANIFEST_SCHEMA_VERSION,
    Applied,
    AppliedState,
    AppliedTable,
    CompiledManifest,
    DependsOn,
    ManifestMetadata,
    ManifestNode,
    ManifestTable,
)
from maintainer.graph.state import checksum_entry
from maintainer.project import TableSpec

INVOCATION = "6d42c3b1-7e94-482f-9b1f-bda7202eed38"


def metadata(project: str = "demo") -> ManifestMetadata:
    return ManifestMetadata(
        maintainer_schema_version=MANIFEST_SCHEMA_VERSION,
        maintainer_version="0.1.0",
        generated_at="2026-11-28T03:26:59.206799Z",
        invocation_id=INVOCATION,
        project_name=project,
        project=project,
        profile="demo",
        target="dev",
        threads=4,
        manifests=("tables/a.yml",),
    )


def table(spec: TableSpec) -> ManifestTable:
    return ManifestTable(
        spec.model_dump(mode="json"), {"clean.commits_retained": "default"}, checksum_entry(spec)
    )


def compiled(specs: Sequence[TableSpec], project: str = "demo") -> CompiledManifest:
    """What ``maintainer compile`` writes for ``specs`` (every node selected)."""
    graph = build_graph(list(specs))

    def uid(node: object) -> str:
        return f"table.{project}.{node}"

    nodes = {
        uid(node): ManifestNode(
            unique_id=uid(node),
            name=str(node),
            table=node.table,
            service=node.service,
            block=graph.nodes[node]["block"],
            mor_only=graph.nodes[node]["mor_only"],
            tags=tuple(graph.nodes[node]["tags"]),
            original_file_path=graph.nodes[node]["manifest"],
            depends_on=DependsOn(tuple(sorted(uid(up) for up in graph.predecessors(node)))),
        )
        for node in graph
    }
    tables = {spec.name: table(spec) for spec in specs}
    return CompiledManifest(metadata(project), nodes, tables, graph_record(graph))


def applied_state(specs: Sequence[TableSpec], applied: Applied) -> AppliedState:
    tables = {spec.name: AppliedTable.of(table(spec), applied) for spec in specs}
    return AppliedState(metadata(), tables, applied)
