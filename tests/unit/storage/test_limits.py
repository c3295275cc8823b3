"""Bounded bytes and bounded JSON (:mod:`maintainer.storage.limits`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError, PlanError
from maintainer.storage import Storage
from maintainer.storage.limits import (
    MAX_JSON_DEPTH,
    MAX_NUMBER_CHARS,
    READ_CHUNK,
    json_shape_problem,
    loads_bounded,
    read_at_most,
    read_capped,
    read_local_capped,
)

MiB = 1024 * 1024


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


# -- the shape scan --------------------------------------------------------------------------------


def test_a_real_document_has_no_shape_problem() -> None:
    stats = [{"fileId": "f-0", "numWrites": 10, "totalWriteBytes": 2**62}]
    schema = '{"type":"record","fields":[{"name":"a","type":["null","long"]}]}'
    document = {"partitionToWriteStats": {"p=1": stats}, "extraMetadata": {"schema": schema},
                "ratio": -1.5e-300, "ok": True, "none": None}  # fmt: skip
    assert json_shape_problem(json.dumps(document, indent=2).encode()) is None


def test_depth_is_counted_up_to_the_cap_and_refused_beyond() -> None:
    assert json_shape_problem(nested(MAX_JSON_DEPTH)) is None
    assert json_shape_problem(nested(MAX_JSON_DEPTH + 1)) == (
        f"objects and arrays nested {MAX_JSON_DEPTH + 1} deep (at most {MAX_JSON_DEPTH} are read)"
    )
    assert json_shape_problem(b'{"a": {"b": [{}]}}', max_depth=4) is None
    assert json_shape_problem(b'{"a": {"b": [{}]}}', max_depth=3) is not None


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False)
    | st.text('"\\[]{}ab0 \n'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text('"\\[]{}x'), inner, max_size=3),
    max_leaves=20,
)


def depth_of(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    return 0


@given(JSON_VALUES, st.booleans())
def test_the_scan_counts_exactly_the_nesting_the_decoder_sees(value: object, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    depth = depth_of(value)
    assert json_shape_problem(data, max_depth=depth) is None
    if depth:
        assert json_shape_problem(data, max_depth=depth - 1) is not None


def test_brackets_inside_strings_are_not_nesting() -> None:
    inside = '{"a": "' + "[{" * 10_000 + '", "b": "\\"[[[\\\\", "c": []}'
    assert json.loads(inside)["c"] == []
    assert json_shape_problem(inside.encode()) is None


def test_brackets_after_an_unterminated_string_are_in_it_for_the_decoder_too() -> None:
    hostile = b'["abc, ' + nested(100_000)
    assert json_shape_problem(hostile) is None
    with pytest.raises(PlanError, match="Unterminated string"):
        loads(hostile)


def test_escaped_quotes_and_backslashes_delimit_strings_as_the_decoder_does() -> None:
    assert json_shape_problem(b'["\\\\", ' + nested(200) + b"]") is not None  # the string is one backslash
    assert json_shape_problem(b'["\\" ' + nested(200) + b'"]') is None  # the brackets are in the string


def test_a_100000_deep_document_is_refused_without_recursion() -> None:
    assert (
        json_shape_problem(nested(100_000)) == "objects and arrays nested 100,000 deep (at most 128 are read)"
    )


def test_number_literals_are_capped_but_digits_in_strings_are_not_numbers() -> None:
    at_cap = b"[" + b"1" * MAX_NUMBER_CHARS + b"]"
    assert json_shape_problem(at_cap) is None
    assert json_shape_problem(b"[-1." + b"5" * MAX_NUMBER_CHARS + b"e10]") == (
        f"a number literal of {MAX_NUMBER_CHARS + 6} characters (at most {MAX_NUMBER_CHARS} are read)"
    )
    assert json_shape_problem(b'["' + b"7" * 100_000 + b'"]') is None


# -- loads_bounded ---------------------------------------------------------------------------------


def loads(data: bytes, max_number_chars: int = MAX_NUMBER_CHARS) -> object:
    return loads_bounded(
        data,
        what="plan.json",
        where="dir/plan.json",
        error=PlanError,
        hint="again",
        max_number_chars=max_number_chars,
    )


def test_loads_bounded_reads_json() -> None:
    assert loads(b'{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (nested(100_000), "plan.json is not read as JSON: objects and arrays nested 100,000 deep"),
        (
            b"[" + b"9" * 100_000 + b"]",
            "plan.json is not read as JSON: a number literal of 100,000 characters",
        ),
        (b'{"a": NaN}', "plan.json is not valid JSON: NaN is not a JSON number"),
        (b'{"a": -Infinity}', "plan.json is not valid JSON: -Infinity is not a JSON number"),
        (b'{"a": ', "plan.json is not valid JSON: Expecting value"),
        (b'{"a": "\xff"}', "plan.json is not valid JSON: 'utf-8' codec can't decode"),
    ],
    ids=["deep", "long-number", "nan", "infinity", "cut", "not-utf8"],
)
def test_loads_bounded_refuses_with_the_caller_s_error(data: bytes, message: str) -> None:
    with pytest.raises(PlanError) as raised:
        loads(data)
    assert raised.value.message.startswith(message), raised.value.message
    assert raised.value.where == "dir/plan.json" and raised.value.hint == "again"


def test_constants_are_read_where_the_format_has_them() -> None:
    value = loads_bounded(
        b"[NaN, Infinity]", what="f", where="w", error=CorruptFileError, hint="h", allow_constants=True
    )
    assert str(value) == "[nan, inf]"


def test_python_s_own_integer_limit_is_a_clear_error_too() -> None:
    """With the number cap raised past 4,300 digits, int() refuses: still the caller's error."""
    with pytest.raises(PlanError, match="Exceeds the limit"):
        loads(b"[" + b"9" * 5_000 + b"]", max_number_chars=10_000)


# -- bounded bytes ---------------------------------------------------------------------------------


def test_read_local_capped(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(b"x" * 10)
    assert read_local_capped(path, 10, what="plan.json", error=PlanError) == b"x" * 10
    with pytest.raises(PlanError) as raised:
        read_local_capped(path, 9, what="plan.json", error=PlanError, hint="make it again")
    assert (
        raised.value.message == "plan.json is 10 bytes, more than the 9 bytes maintainer reads of such a file"
    )
    assert (raised.value.where, raised.value.hint) == (str(path), "make it again")
    with pytest.raises(FileNotFoundError):
        read_local_capped(tmp_path / "absent", 9, what="plan.json", error=PlanError)


def test_read_local_capped_refuses_a_huge_sparse_file_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.touch()
    os.truncate(path, 1536 * MiB)
    with pytest.raises(PlanError, match="is 1,610,612,736 bytes, more than the 1,024 bytes"):
        read_local_capped(path, 1024, what="plan.json", error=PlanError)


def test_read_capped_from_storage(tmp_path: Path) -> None:
    (tmp_path / ".hoodie").mkdir()
    properties = tmp_path / ".hoodie" / "hoodie.properties"
    properties.write_bytes(b"a=b\n")
    storage = Storage(str(tmp_path))
    assert read_capped(
        storage, ".hoodie/hoodie.properties", 4, what="hoodie.properties", error=CorruptFileError
    ) == (b"a=b\n")
    assert storage.read_bytes_within(".hoodie/hoodie.properties", 3) is None
    os.truncate(properties, 600 * MiB)
    with pytest.raises(CorruptFileError) as raised:
        read_capped(
            storage, ".hoodie/hoodie.properties", 16 * MiB, what="hoodie.properties", error=CorruptFileError
        )
    assert raised.value.message == (
        "hoodie.properties is more than the 16,777,216 bytes maintainer reads of such a file"
    )
    assert raised.value.where == storage.uri(".hoodie/hoodie.properties")


def test_read_bytes_within_on_s3_reads_no_body_of_a_larger_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """One GET; the length in its answer refuses an object over the limit before its body is read."""
    from maintainer.storage import s3

    class Body:
        def __init__(self, data: bytes) -> None:
            self.data, self.closed = data, False
            self.asked: list[int | None] = []

        def read(self, amount: int | None = None) -> bytes:
            self.asked.append(amount)
            taken = self.data if amount is None else self.data[:amount]
            self.data = self.data[len(taken) :]
            return taken

        def close(self) -> None:
            self.closed = True

    bodies: dict[str, Body] = {"small": Body(b"a=b\n"), "large": Body(b"x" * 100)}

    class Client:
        def get_object(self, Bucket: str, Key: str) -> dict[str, object]:
            body = bodies[Key.rsplit("/", 1)[-1]]
            return {"Body": body, "ContentLength": len(body.data)}

    monkeypatch.setattr(s3, "s3_client", lambda options: Client())
    storage = Storage("s3://bucket/t", {"endpoint_override": "e:4"})
    assert storage.read_bytes_within("small", 4) == b"a=b\n"
    assert bodies["small"].asked == [5, 1] and bodies["small"].closed
    assert storage.read_bytes_within("large", 4) is None
    assert bodies["large"].asked == [] and bodies["large"].closed


class Source:
    """``read(n)`` over some bytes, recording what was asked."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.asked: list[int] = []

    def read(self, amount: int) -> bytes:
        self.asked.append(amount)
        taken, self.data = self.data[:amount], self.data[amount:]
        return taken


def test_read_at_most_asks_for_the_known_size_at_once_and_never_more_than_the_limit() -> None:
    known = Source(b"x" * 10)
    assert read_at_most(known.read, 100, size=10) == b"x" * 10 and known.asked == [11, 91]
    grown = Source(b"x" * 30)  # 10 bytes when its size was asked, 30 when read
    assert read_at_most(grown.read, 20, size=10) is None and grown.asked == [11, 10]
    unknown = Source(b"x" * (2 * READ_CHUNK))
    assert read_at_most(unknown.read, READ_CHUNK + 5) is None and unknown.asked == [READ_CHUNK, 6]
    small = Source(b"abc")
    assert read_at_most(small.read, READ_CHUNK) == b"abc" and small.asked == [READ_CHUNK, READ_CHUNK - 2]
