"""The stored form of plan.json: any JSON value reads back equal, keys sorted, and every
object or list that holds no other on one line (an action a line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.artifact import canonical
from maintainer.artifact.canonical import pretty_json

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


def reference_pretty(value: Any, indent: str = "") -> str:
    """The stored form written plainly: the public encoder, one call per value."""
    inline = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    containers = (dict, list)
    if not isinstance(value, containers) or not value:
        return inline.encode(value)
    items = value.values() if isinstance(value, dict) else value
    if not any(isinstance(item, containers) for item in items):
        return inline.encode(value)
    inner = indent + "  "
    if isinstance(value, dict):
        body = ",".join(
            f"\n{inner}{inline.encode(k)}: {reference_pretty(value[k], inner)}" for k in sorted(value)
        )
        return "{" + body + f"\n{indent}}}"
    body = ",".join(f"\n{inner}{reference_pretty(item, inner)}" for item in value)
    return "[" + body + f"\n{indent}]"


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_stored_form_is_the_plain_encoders(value: Any) -> None:
    assert pretty_json(value) == reference_pretty(value) + "\n"


def test_without_a_c_encoder_the_public_one_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert canonical._public_inline()(canonical._PROBE) == canonical._PROBE_TEXT
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    assert canonical._reused_inline() is None
    monkeypatch.setattr(json.encoder, "c_make_encoder", lambda *args: lambda value, level: ["{}"])
    assert canonical._reused_inline() is None  # encodes the probe differently: not used


def test_what_is_not_json_is_refused_as_the_public_encoder_refuses() -> None:
    with pytest.raises(TypeError, match="is not JSON serializable"):
        pretty_json({"a": {"b": object()}})
    with pytest.raises(ValueError, match="not JSON compliant"):
        pretty_json({"a": float("nan")})


@settings(max_examples=60, deadline=None)
@given(values, st.integers(1, 5))
def test_a_plan_written_as_it_is_made_is_the_stored_form_byte_for_byte(
    tmp_path_factory: pytest.TempPathFactory, value: Any, flush_every: int
) -> None:
    """``write_pretty_json`` flushes its pieces as it goes (here every few, to flush inside every
    list): the file holds exactly ``pretty_json``'s UTF-8."""
    path = tmp_path_factory.mktemp("pretty") / "plan.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical, "_FLUSH_PARTS", flush_every)
        canonical.write_pretty_json(path, value)
    assert path.read_bytes() == pretty_json(value).encode("utf-8")


def test_a_large_plan_is_written_in_pieces_that_read_back_equal(tmp_path: Path) -> None:
    actions = [
        {"kind": "delete_file", "target": f"p/é{index}.parquet", "size": index} for index in range(20_000)
    ]
    value = {"tables": [{"nodes": [{"actions": actions, "reasons": ["r"]}]}], "plan_id": "x"}
    path = tmp_path / "plan.json"
    canonical.write_pretty_json(path, value)
    assert path.read_text("utf-8") == pretty_json(value)
    assert json.loads(path.read_text("utf-8")) == value
