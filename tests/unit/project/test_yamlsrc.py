from __future__ import annotations

import pytest

from maintainer.errors import ManifestError
from maintainer.project.yamlsrc import Mark, load_yaml_text

TEXT = """\
version: 1
tables:
  - name: trips
    path: /lake/trips
    savepoints:
      instants: [20250101000000000, "20250102000000000"]
    created: 2025-01-01
"""


def test_values_and_keys_keep_line_and_column() -> None:
    document = load_yaml_text(TEXT, "t.yml")

    assert document.mark(("tables", 0, "path")) == Mark("t.yml", 4, 11)
    assert document.key_mark(("tables", 0, "path")) == Mark("t.yml", 4, 5)
    assert document.mark(("tables", 0, "savepoints", "instants", 1)) == Mark("t.yml", 6, 37)
    assert str(document.mark(("tables", 0, "missing", "deeper"))) == "t.yml:3:5"


def test_scalars_are_typed_but_timestamps_stay_text() -> None:
    data = load_yaml_text(TEXT, "t.yml").data
    table = data["tables"][0]

    assert data["version"] == 1
    assert table["savepoints"]["instants"] == [20250101000000000, "20250102000000000"]
    assert table["created"] == "2025-01-01"


def test_duplicate_keys_are_refused_with_both_lines() -> None:
    with pytest.raises(ManifestError) as caught:
        load_yaml_text("a: 1\nb: 2\na: 3\n", "d.yml")

    assert caught.value.where == "d.yml:3:1"
    assert "first at line 1" in caught.value.message


def test_merge_keys_and_anchors() -> None:
    text = "base: &base {x: 1, y: 2}\nchild:\n  <<: *base\n  y: 3\n"

    data = load_yaml_text(text, "m.yml").data

    assert data["child"] == {"x": 1, "y": 3}


def test_empty_document_is_none() -> None:
    assert load_yaml_text("# nothing\n", "e.yml").data is None


@pytest.mark.parametrize(
    "text",
    [
        "a: [1, 2\n",
        "a: !!python/name:os.system x\n",
        "a: !!python/object/apply:os.system [ls]\n",
        "? [a]\n: 1\n",
    ],
)
def test_unsafe_or_broken_yaml_is_a_manifest_error(text: str) -> None:
    with pytest.raises(ManifestError) as caught:
        load_yaml_text(text, "x.yml")

    assert caught.value.where is not None and caught.value.where.startswith("x.yml:")
    assert caught.value.hint
