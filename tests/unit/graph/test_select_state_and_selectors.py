"""``state:`` and ``selector:`` methods, and selectors.yml definitions (string and dbt's mapping form)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import networkx as nx
import pytest

from maintainer.errors import ManifestError, UsageError
from maintainer.graph import build_graph, select_nodes
from maintainer.graph.manifest import Applied, Checksum, dump_record
from maintainer.graph.select import SelectionContext
from maintainer.graph.state import StateComparison, checksum_entry, read_state, table_checksum
from maintainer.project.selectors import load_selectors
from tests.unit.graph.manifests import applied_state, compiled
from tests.unit.graph.specs import spec

SPECS = [
    spec("raw", tags=("bronze", "nightly")),
    spec("orders", depends_on=("raw",), tags=("silver",)),
    spec("daily", depends_on=("orders",), tags=("gold", "nightly"), blocks=("clean",)),
]


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return build_graph(SPECS)


def tables(
    graph: nx.DiGraph, select: tuple[str, ...], context: SelectionContext, exclude: tuple[str, ...] = ()
) -> set[str]:
    return {node.table for node in select_nodes(graph, select, exclude, context).nodes}


def test_checksum_ignores_where_a_table_is_written_but_not_what_it_is() -> None:
    base = spec("orders")
    assert table_checksum(base) == table_checksum(base.model_copy(update={"manifest": "x.yml", "line": 9}))
    assert table_checksum(base) != table_checksum(base.model_copy(update={"tags": ("new",)}))
    assert checksum_entry(base) == Checksum("sha256", table_checksum(base))


def test_state_methods(graph: nx.DiGraph) -> None:
    current = {"raw": "a", "orders": "b2", "daily": "c"}
    state = StateComparison("old/manifest.json", {"raw": "a", "orders": "b1"}, current)
    context = SelectionContext(state=state)

    assert tables(graph, ("state:modified",), context) == {"orders", "daily"}
    assert tables(graph, ("state:new",), context) == {"daily"}
    assert tables(graph, ("state:unmodified",), context) == {"raw"}
    assert tables(graph, ("state:old",), context) == {"raw", "orders"}
    assert tables(graph, ("+state:new",), context) == {"raw", "orders", "daily"}
    assert tables(graph, ("state:modified",), context, ("state:new",)) == {"orders"}


def test_state_without_state_dir_is_a_usage_error(graph: nx.DiGraph) -> None:
    with pytest.raises(UsageError, match=r"state:modified needs --state DIR with a manifest.json"):
        select_nodes(graph, ("state:modified",))
    with pytest.raises(UsageError, match="unknown state 'modifed'") as caught:
        select_nodes(graph, ("state:modifed",))
    assert caught.value.hint is not None and "did you mean 'modified'" in caught.value.hint


def test_read_state(tmp_path: Path) -> None:
    """--state DIR takes a compiled manifest.json or an applied state, and refuses anything else."""
    raw, orders = spec("raw"), spec("orders")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(dump_record(compiled([raw, orders]))))
    current = {"raw": table_checksum(raw), "orders": "changed"}
    assert read_state(tmp_path, current).tables("unmodified") == {"raw"}
    manifest.write_text(json.dumps(dump_record(applied_state([raw], Applied("p", "2026", "r")))))
    assert read_state(tmp_path, current).tables("new") == {"orders"}

    for text, message in [
        ("{", "is not valid JSON"),
        ("[]", "is not a maintainer manifest.json: the file: Input should be an object"),
        ('{"tables": {"raw": {"spec": {}}}}', "tables.raw.checksum: missing"),
    ]:
        manifest.write_text(text)
        with pytest.raises(UsageError, match=message) as caught:
            read_state(tmp_path, {})
        assert caught.value.where == str(manifest)
    with pytest.raises(UsageError, match="does not exist"):
        read_state(tmp_path / "nowhere", {})


SELECTORS = """\
    selectors:
      - name: nightly
        description: the nightly job
        definition: "tag:nightly"
      - name: upstream_of_daily
        definition:
          method: table
          value: daily
          parents: true
      - name: mixed
        definition:
          union:
            - selector: nightly
            - {method: tag, value: silver, parents_depth: 1}
            - exclude:
                - daily
      - name: both
        definition:
          intersection:
            - tag: nightly
            - "+daily"
      - name: family
        definition: {method: table, value: orders, childrens_parents: true}
      - name: loop_a
        definition: "selector:loop_b"
      - name: loop_b
        definition: {union: [selector:loop_a]}
    """


@pytest.fixture
def selectors(tmp_path: Path) -> SelectionContext:
    (tmp_path / "selectors.yml").write_text(textwrap.dedent(SELECTORS))
    return SelectionContext(selectors=load_selectors(tmp_path))


def test_selector_definitions(graph: nx.DiGraph, selectors: SelectionContext) -> None:
    assert tables(graph, ("selector:nightly",), selectors) == {"raw", "daily"}
    assert tables(graph, ("selector:upstream_of_daily",), selectors) == {"raw", "orders", "daily"}
    assert tables(graph, ("selector:mixed",), selectors) == {"raw", "orders"}
    assert tables(graph, ("selector:both",), selectors) == {"raw", "daily"}
    assert tables(graph, ("selector:family",), selectors) == {"raw", "orders", "daily"}
    assert tables(graph, ("selector:nightly,tag:gold",), selectors) == {"daily"}
    assert tables(graph, ("selector:nightly+",), selectors) == {"raw", "orders", "daily"}


def test_selector_errors(graph: nx.DiGraph, selectors: SelectionContext) -> None:
    with pytest.raises(UsageError, match="unknown selector 'nightley'") as caught:
        select_nodes(graph, ("selector:nightley",), (), selectors)
    assert caught.value.hint is not None and "did you mean 'nightly'" in caught.value.hint
    with pytest.raises(UsageError, match="in a circle: loop_a -> loop_b -> loop_a"):
        select_nodes(graph, ("selector:loop_a",), (), selectors)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("selectors: {a: 1}\n", "must be a mapping with a 'selectors:' list", 1),
        ("selectors:\n  - name: a\n    definiton: x\n", "unknown key 'definiton'", 3),
        ("selectors:\n  - name: a\n    definition: {union: []}\n", "'union' must be a non-empty list", 3),
        ("selectors:\n  - name: a\n    definition: {method: tag, valu: x}\n", "unknown key 'valu'", 3),
        ("selectors:\n  - name: a\n    definition: x\n  - name: a\n    definition: y\n", "duplicate", 4),
        (
            "selectors:\n  - name: a\n    definition:\n      method: tag\n      value: x\n      parents: 2\n",
            "'parents' must be true or false",
            6,
        ),
    ],
)
def test_bad_selectors_file_names_file_and_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    (tmp_path / "selectors.yml").write_text(text)
    with pytest.raises(ManifestError, match=message) as caught:
        load_selectors(tmp_path)
    assert caught.value.where is not None and caught.value.where.startswith(f"selectors.yml:{line}")


def test_bad_method_in_a_definition_names_its_line(graph: nx.DiGraph, tmp_path: Path) -> None:
    (tmp_path / "selectors.yml").write_text("selectors:\n  - name: a\n    definition:\n      colour: red\n")
    context = SelectionContext(selectors=load_selectors(tmp_path))
    with pytest.raises(UsageError, match="unknown selector method 'colour'") as caught:
        select_nodes(graph, ("selector:a",), (), context)
    assert caught.value.where == "selectors.yml:4:7"


def test_no_selectors_file_means_no_selectors(tmp_path: Path) -> None:
    assert load_selectors(tmp_path) == {}
