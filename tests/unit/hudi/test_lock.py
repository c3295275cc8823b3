"""Hudi's storage-based lock as a model: the object's path, its bytes as Hudi's Jackson writes
them, and when it binds."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi.lock import (
    CLOCK_DRIFT_BUFFER_MS,
    DEFAULT_RENEW_INTERVAL_MS,
    DEFAULT_VALIDITY_MS,
    LOCK_PATH,
    LockTiming,
    StorageLockData,
    jackson_string,
)


def test_the_object_is_hudis_table_lock_json() -> None:
    assert LOCK_PATH == ".hoodie/.locks/table_lock.json"


def test_the_bytes_are_what_hudis_object_mapper_writes() -> None:
    # Hudi's own test data (StorageLockClientFileTest): compact, creator properties in order
    expected = b'{"expired":false,"validUntil":1700000000000,"owner":"testOwner"}'
    assert StorageLockData(False, 1_700_000_000_000, "testOwner").encode() == expected
    released = b'{"expired":true,"validUntil":1700000000000,"owner":"f81d4fae-7dec-11d0-a765-00a0c91e6bf6"}'
    data = StorageLockData(False, 1_700_000_000_000, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
    assert data.released().encode() == released


def test_strings_are_escaped_as_jackson_escapes_them() -> None:
    assert jackson_string('a"b\\c') == '"a\\"b\\\\c"'
    assert jackson_string("\b\t\n\f\r") == '"\\b\\t\\n\\f\\r"'
    assert jackson_string("\x00\x1f") == '"\\u0000\\u001F"'  # upper-case hex
    assert jackson_string("héllo/ü\x7f") == '"héllo/ü\x7f"'  # as is, UTF-8 encoded
    assert StorageLockData(False, 1, "é").encode() == '{"expired":false,"validUntil":1,"owner":"é"}'.encode()


@given(st.booleans(), st.integers(min_value=0, max_value=2**63 - 1), st.text())
def test_decode_reads_what_encode_writes(expired: bool, valid_until: int, owner: str) -> None:
    data = StorageLockData(expired, valid_until, owner)
    encoded = data.encode()
    assert StorageLockData.decode(encoded) == data
    assert json.loads(encoded) == {"expired": expired, "validUntil": valid_until, "owner": owner}


def test_decode_ignores_unknown_properties_as_hudi_does() -> None:
    # Hudi's own test data (JSON_DATA_EXTRA_FIELD)
    raw = b'{"expired":true,"validUntil":1600000000000,"owner":"otherOwner","state":"active"}'
    assert StorageLockData.decode(raw) == StorageLockData(True, 1_600_000_000_000, "otherOwner")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"invalidField":123}',
        b'{"expired":null,"validUntil":1,"owner":"o"}',
        b'{"expired":false,"validUntil":null,"owner":"o"}',
        b'{"expired":false,"validUntil":"soon","owner":"o"}',
        b'{"expired":false,"validUntil":1}',
        b"[]",
        b"not json",
        b"\xff",
    ],
)
def test_decode_refuses_what_hudi_refuses(raw: bytes) -> None:
    with pytest.raises(CorruptFileError):
        StorageLockData.decode(raw)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b'{"expired":false,"validUntil":1,"owner":"' + b"o" * 70_000 + b'"}',
            "the lock object is 70,043 bytes",
        ),
        (b'{"owner":' + b"[" * 10_000 + b"]" * 10_000 + b"}", "nested 10,001 deep"),
        (b'{"expired":false,"validUntil":' + b"1" * 10_000 + b',"owner":"o"}', "a number literal of 10,000"),
    ],
    ids=["oversize", "deep", "long-number"],
)
def test_decode_refuses_hostile_lock_objects_clearly(raw: bytes, message: str) -> None:
    with pytest.raises(CorruptFileError, match=message) as raised:
        StorageLockData.decode(raw, "t/.hoodie/.locks/table_lock.json")
    assert raised.value.where == "t/.hoodie/.locks/table_lock.json"


def test_a_lock_binds_through_valid_until_plus_the_clock_drift_buffer() -> None:
    lock = StorageLockData(False, 1_000_000, "o")
    assert CLOCK_DRIFT_BUFFER_MS == 500
    assert lock.binds(0)
    assert lock.binds(1_000_000)
    assert lock.binds(1_000_500)  # Hudi: dangling only when now > validUntil + 500
    assert not lock.binds(1_000_501)


def test_a_released_lock_binds_no_more() -> None:
    lock = StorageLockData(False, 1_000_000, "o").released()
    assert lock == StorageLockData(True, 1_000_000, "o")
    assert not lock.binds(0)


def test_acquiring_writes_now_plus_the_validity() -> None:
    timing = LockTiming()
    assert (timing.validity_ms, timing.renew_interval_ms) == (300_000, 30_000)
    assert (DEFAULT_VALIDITY_MS, DEFAULT_RENEW_INTERVAL_MS) == (300_000, 30_000)
    assert StorageLockData.acquired("me", 5_000, timing) == StorageLockData(False, 305_000, "me")
    assert StorageLockData.acquired("me", 5_000, LockTiming(1000, 100)).valid_until == 6000


def test_the_validity_must_be_ten_renewal_intervals_as_hudi_requires() -> None:
    LockTiming(1000, 100)
    with pytest.raises(ValueError, match="at least 10 renewal intervals"):
        LockTiming(999, 100)
    with pytest.raises(ValueError):
        LockTiming(1000, 0)
