from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads import jackson

EXPECTED = """{
  "partitionToWriteStats" : {
    "" : [ {
      "fileId" : "f-0",
      "logFiles" : [ ".f-0_1.log.1_0-1-1", ".f-0_1.log.2_0-1-1" ],
      "runtimeStats" : {
        "totalScanTime" : 0
      }
    }, {
      "fileId" : "f-1",
      "logFiles" : [ ]
    } ]
  },
  "compacted" : false,
  "extraMetadata" : { },
  "operationType" : null
}"""


def test_pretty_printing_matches_jacksons_default_printer() -> None:
    value = json.loads(EXPECTED)
    assert jackson.dumps(value) == EXPECTED


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (0.5, "0.5"),
        (-2.25, "-2.25"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1e-05, "1.0E-5"),
        (9999999.0, "9999999.0"),
        (1e7, "1.0E7"),
        (1.2345e10, "1.2345E10"),
        (-3.5e-7, "-3.5E-7"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
    ],
)
def test_doubles_are_written_as_java_does(value: float, text: str) -> None:
    assert jackson.java_double(value) == text


def test_strings_escape_only_what_json_requires() -> None:
    text = 'a"b\\c\nd/é\u0001\u001f\t'
    assert jackson.dumps({"k": text}) == '{\n  "k" : "a\\"b\\\\c\\nd/é\\u0001\\u001F\\t"\n}'
    assert json.loads(jackson.dumps({"k": text})) == {"k": text}


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_java_doubles_parse_back_to_the_same_value(value: float) -> None:
    assert float(jackson.java_double(value)) == value


def test_loads_object_refuses_what_is_not_a_json_object() -> None:
    with pytest.raises(CorruptFileError, match=r"x\.commit"):
        jackson.loads_object(b"{ not json", "x.commit")
    with pytest.raises(CorruptFileError, match="expected a JSON object"):
        jackson.loads_object(b"[1, 2]", "x.commit")
    with pytest.raises(CorruptFileError, match=r"x\.commit"):
        jackson.loads_object(b"\xff\xfe", "x.commit")


def test_loads_object_refuses_hostile_nesting_and_numbers_naming_the_file() -> None:
    depth = 100_000
    with pytest.raises(CorruptFileError, match="nested 100,001 deep") as raised:
        jackson.loads_object(b'{"a": ' + b"[" * depth + b"]" * depth + b"}", "x.commit")
    assert raised.value.where == "x.commit"
    with pytest.raises(CorruptFileError, match="a number literal of 100,000 characters"):
        jackson.loads_object(b'{"a": ' + b"9" * 100_000 + b"}", "x.commit")


def test_loads_object_reads_the_nan_and_infinity_jackson_writes() -> None:
    written = jackson.dumps({"a": float("nan"), "b": float("-inf")})
    read = jackson.loads_object(written.encode(), "x.commit")
    assert read["a"] != read["a"] and read["b"] == float("-inf")
