"""Hostile YAML is refused before it is composed or built: size, depth, alias expansion."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from maintainer.errors import ManifestError
from maintainer.project.yamlsrc import YamlLimits, load_yaml_file, load_yaml_text


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    """Each level is a list of ``width`` aliases of the level below: width**levels values."""
    lines = ["a0: &a0 [lol]"]
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{aliases}]")
    return "\n".join(lines) + "\n"


def nested_lists(depth: int) -> str:
    return "a: " + "[" * depth + "]" * depth + "\n"


def nested_mappings(depth: int) -> str:
    return "{a: " * depth + "x" + "}" * depth + "\n"


def test_block_mappings_nested_past_the_limit_are_refused_at_the_level_that_crosses_it() -> None:
    text = "".join("  " * level + "a:\n" for level in range(70)) + "  " * 70 + "x\n"

    with pytest.raises(ManifestError) as caught:
        load_yaml_text(text, "deep.yml")

    assert caught.value.where == "deep.yml:65:129"


def test_billion_laughs_is_refused_at_the_alias_that_crosses_the_limit() -> None:
    started = time.perf_counter()
    with pytest.raises(ManifestError) as caught:
        load_yaml_text(billion_laughs(), "laughs.yml")

    assert time.perf_counter() - started < 5
    assert "aliases expand the document past 100000 values" in caught.value.message
    assert caught.value.where is not None and caught.value.where.startswith("laughs.yml:6:")
    assert caught.value.hint


def test_aliases_count_their_expanded_size_against_a_small_limit() -> None:
    text = "base: &b {x: 1, y: 2}\nfirst: *b\nsecond: *b\n"  # 1 + 3 keys + 3 times 5 = 19 values

    load_yaml_text(text, "ok.yml", YamlLimits(max_values=19))
    with pytest.raises(ManifestError) as caught:
        load_yaml_text(text, "ok.yml", YamlLimits(max_values=18))

    assert caught.value.where == "ok.yml:3:9"
    assert "alias '*b'" in caught.value.message


def test_merge_keys_are_expanded_aliases_too() -> None:
    text = "base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  z: 3\n"

    assert load_yaml_text(text, "m.yml").data["child"] == {"x": 1, "y": 2, "z": 3}
    with pytest.raises(ManifestError, match="aliases expand the document past 14 values"):
        load_yaml_text(text, "m.yml", YamlLimits(max_values=14))  # 15 once '*b' is expanded
    with pytest.raises(
        ManifestError, match="more than 16 values in one file, 5 of them copies made by aliases"
    ):
        load_yaml_text(text, "m.yml", YamlLimits(max_values=16))


@pytest.mark.parametrize("depth", [65, 5_000, 50_000])
@pytest.mark.parametrize("shape", [nested_lists, nested_mappings])
def test_deep_nesting_is_refused_before_composing(shape: object, depth: int) -> None:
    text = shape(depth)  # type: ignore[operator]
    started = time.perf_counter()
    with pytest.raises(ManifestError) as caught:
        load_yaml_text(text, "deep.yml")

    assert time.perf_counter() - started < 5
    assert caught.value.message == "nesting deeper than 64 levels"
    assert caught.value.where is not None and caught.value.where.startswith("deep.yml:")


def test_nesting_up_to_the_limit_loads() -> None:
    assert load_yaml_text(nested_lists(63), "ok.yml").data == {"a": load_list(62)}


def load_list(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


def test_too_many_plain_values_are_refused() -> None:
    text = "[" + "1," * 400_000 + "1]\n"

    started = time.perf_counter()
    with pytest.raises(ManifestError) as caught:
        load_yaml_text(text, "flat.yml")

    assert time.perf_counter() - started < 5
    assert caught.value.message == "more than 100000 values in one file"
    assert caught.value.where is not None and caught.value.where.startswith("flat.yml:1:")


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yml"
    path.write_text("# " + "x" * 200 + "\nversion: 1\n")

    assert load_yaml_file(path, "big.yml", YamlLimits(max_bytes=214)).data == {"version": 1}
    with pytest.raises(ManifestError) as caught:
        load_yaml_file(path, "big.yml", YamlLimits(max_bytes=213))

    assert caught.value.where == "big.yml:1"
    assert caught.value.message == "file is larger than 213 bytes"


def test_the_default_size_limit_is_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "big.yml"
    path.write_text("a: '" + "x" * (1024 * 1024) + "'\n")

    with pytest.raises(ManifestError, match="file is larger than 1048576 bytes"):
        load_yaml_file(path, "big.yml")


def test_an_integer_too_long_for_python_is_a_manifest_error() -> None:
    with pytest.raises(ManifestError) as caught:
        load_yaml_text("a: " + "9" * 5000 + "\n", "n.yml")

    assert caught.value.where == "n.yml:1:4"
    assert "quote the value" in (caught.value.hint or "")
