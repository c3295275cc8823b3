"""The stored form of plan.json: any JSON value reads back equal, keys sorted, and every
object or list that holds no other on one line (an action a line)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.plan.canonical import pretty_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False)
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_json_value_reads_back_equal(value: Any) -> None:
    text = pretty_json(value)
    assert text.endswith("\n") and json.loads(text) == value


def test_flat_objects_and_lists_take_one_line_and_keys_are_sorted() -> None:
    value = {
        "tables": [{"nodes": [{"actions": [{"target": "p/a", "kind": "delete_file"}, {"target": "p/b"}]}]}],
        "format_version": 2,
        "payloads": ["a", "b"],
        "empty": {},
    }
    assert pretty_json(value) == (
        "{\n"
        '  "empty": {},\n'
        '  "format_version": 2,\n'
        '  "payloads": ["a", "b"],\n'
        '  "tables": [\n'
        "    {\n"
        '      "nodes": [\n'
        "        {\n"
        '          "actions": [\n'
        '            {"kind": "delete_file", "target": "p/a"},\n'
        '            {"target": "p/b"}\n'
        "          ]\n"
        "        }\n"
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}\n"
    )


def test_text_is_kept_as_written_and_scalars_alone_are_plain() -> None:
    assert pretty_json({"w": "é ☃"}) == '{"w": "é ☃"}\n'
    assert pretty_json(3) == "3\n" and pretty_json([]) == "[]\n"
