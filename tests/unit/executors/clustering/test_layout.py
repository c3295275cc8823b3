"""Row order of a clustering group: linear (nulls first), z-order and Hilbert keys, and the split
into output files."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest

from maintainer.errors import ApplyError
from maintainer.executors.clustering.layout import (
    Layout,
    curve_key,
    layout_of,
    ordered,
    sort_columns_of,
    split_counts,
    stretched,
)


def grid(side: int, dims: int) -> pa.Table:
    points = list(itertools.product(range(side), repeat=dims))
    return pa.table({f"c{d}": [p[d] for p in points] for d in range(dims)})


def key_values(table: pa.Table, columns: list[str], layout: Layout) -> list[int]:
    words = curve_key(table, columns, layout)
    return [
        sum(int(w[i]) << (64 * (len(words) - 1 - k)) for k, w in enumerate(words))
        for i in range(table.num_rows)
    ]


def test_linear_order_is_ascending_with_nulls_first_and_stable() -> None:
    table = pa.table({"a": [3, None, 1, 2, None, 1], "b": ["x", "y", None, "a", "b", "c"], "row": range(6)})
    result = ordered(table, ["a", "b"], Layout.LINEAR).to_pydict()
    assert result["a"] == [None, None, 1, 1, 2, 3]
    assert result["b"] == ["b", "y", None, "c", "a", "x"]  # within a = 1 the null b first
    ties = ordered(pa.table({"a": [1, 1, 1], "row": [0, 1, 2]}), ["a"], Layout.LINEAR)
    assert ties.column("row").to_pylist() == [0, 1, 2]


def test_no_sort_columns_keeps_plan_order() -> None:
    table = pa.table({"a": [3, 1, 2]})
    assert ordered(table, [], Layout.HILBERT).equals(table)


@pytest.mark.parametrize("layout", [Layout.ZORDER, Layout.HILBERT])
def test_curve_keys_number_every_cell_of_a_grid_once(layout: Layout) -> None:
    for side, dims in ((8, 2), (4, 3)):
        keys = key_values(grid(side, dims), [f"c{d}" for d in range(dims)], layout)
        shift = 64 - dims * (side.bit_length() - 1)
        assert sorted(k >> shift for k in keys) == list(range(side**dims))


def test_z_order_key_grows_with_every_column() -> None:
    table = grid(8, 2)
    keys = key_values(table, ["c0", "c1"], Layout.ZORDER)
    points = list(zip(table.column("c0").to_pylist(), table.column("c1").to_pylist(), strict=True))
    for (p, kp), (q, kq) in itertools.combinations(zip(points, keys, strict=True), 2):
        if p != q and p[0] <= q[0] and p[1] <= q[1]:
            assert kp < kq, (p, q)


@pytest.mark.parametrize("dims", [2, 3])
def test_hilbert_order_steps_to_a_neighbouring_cell(dims: int) -> None:
    table = ordered(grid(4 if dims == 3 else 8, dims), [f"c{d}" for d in range(dims)], Layout.HILBERT)
    points = list(zip(*(table.column(f"c{d}").to_pylist() for d in range(dims)), strict=True))
    assert points[0] == (0,) * dims
    for a, b in itertools.pairwise(points):
        assert sum(abs(x - y) for x, y in zip(a, b, strict=True)) == 1, (a, b)


def test_ranks_are_order_preserving_over_any_values() -> None:
    table = pa.table({"s": ["b", None, "a", "c", "b"], "x": [10.5, 2.0, None, -1.0, 2.0]})
    words = curve_key(table, ["s", "x"], Layout.ZORDER)
    assert len(words) == 1
    ranks = stretched(np.array([1, 2, 3, 5], dtype=np.uint64), 3)
    assert list(ranks) == [0, 1, 3, 7]  # strictly increasing, onto [0, 7]
    z = ordered(table, ["s", "x"], Layout.ZORDER).to_pydict()
    rows = list(zip(z["s"], z["x"], strict=True))
    assert rows.index(("a", None)) < rows.index(("c", -1.0))  # lower in both (a null is lowest)
    assert rows.index((None, 2.0)) < rows.index(("b", 10.5))


def test_curve_orders_keep_every_row() -> None:
    rng = np.random.default_rng(7)
    table = pa.table({"a": rng.integers(0, 50, 500), "b": rng.random(500), "row": range(500)})
    for layout in Layout:
        rows = ordered(table, ["a", "b"], layout).column("row").to_pylist()
        assert sorted(rows) == list(range(500))


def test_unorderable_columns_are_refused_clearly() -> None:
    table = pa.table({"s": [[1], [2]], "t": [1, 2]})
    with pytest.raises(ApplyError, match="sort columns"):
        ordered(table, ["s", "t"], Layout.LINEAR)


def test_split_into_files_of_about_equal_rows() -> None:
    assert split_counts(10, 3) == [4, 3, 3]
    assert split_counts(9, 3) == [3, 3, 3]
    assert split_counts(2, 4) == [1, 1]
    assert split_counts(0, 2) == []
    assert split_counts(5, 0) == [5]


def test_plan_parameters() -> None:
    params = {
        "hoodie.clustering.plan.strategy.sort.columns": " fare, rider ,",
        "hoodie.layout.optimize.strategy": "ZORDER",
    }
    assert sort_columns_of(params) == ("fare", "rider")
    assert sort_columns_of({}) == ()
    assert layout_of(params) is Layout.ZORDER
    assert layout_of(params, "hilbert") is Layout.HILBERT
    assert layout_of(None) is Layout.LINEAR
    assert layout_of({"hoodie.layout.optimize.strategy": "z-order"}) is Layout.ZORDER
    with pytest.raises(ApplyError, match="unknown layout"):
        layout_of({}, "spiral")
