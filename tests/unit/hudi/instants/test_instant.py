"""Instant file names of both timeline layouts: every action x state round-trips."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.instant import (
    Action,
    Instant,
    State,
    format_instant_time,
    instant_file_name,
    instant_time_to_epoch_ms,
    is_instant_time,
    parse_instant_file_name,
    parse_instant_time,
    wall_clock_in_timezone,
)

DIGITS = "0123456789"


def _instant_time(moment: datetime, millis: int | None) -> str:
    """``yyyyMMddHHmmss[SSS]``, the year in four digits (``%Y`` does not pad it on every platform)."""
    text = f"{moment.year:04d}{moment:%m%d%H%M%S}"
    return text if millis is None else f"{text}{millis:03d}"


instant_times = st.one_of(
    st.builds(_instant_time, st.datetimes(), st.none() | st.integers(0, 999)),
    st.text(DIGITS, min_size=6, max_size=6).map(lambda rest: f"00000000{rest}"),  # Hudi's reserved times
    st.text(DIGITS, min_size=9, max_size=9).map(lambda rest: f"00000000{rest}"),
)
SERVICE_COMPLETES_AS = {
    Action.COMPACTION: Action.COMMIT,
    Action.LOG_COMPACTION: Action.DELTA_COMMIT,
    Action.CLUSTERING: Action.REPLACE_COMMIT,
}


def _expected_pending_name(ts: str, action: Action, state: State) -> str:
    if state is State.INFLIGHT and action is Action.COMMIT:
        return f"{ts}.inflight"
    return f"{ts}.{action.value}.{state.value.lower()}"


@given(
    instant_times,
    st.sampled_from(list(Action)),
    st.sampled_from([State.REQUESTED, State.INFLIGHT]),
    st.sampled_from([1, 2]),
)
def test_pending_instant_file_names_round_trip(ts: str, action: Action, state: State, layout: int) -> None:
    instant = Instant(ts, action, state)
    name = instant_file_name(instant, layout)
    assert name == _expected_pending_name(ts, action, state)
    assert parse_instant_file_name(name) == instant


@given(instant_times, st.sampled_from(list(Action)))
def test_completed_layout1_file_names_round_trip(ts: str, action: Action) -> None:
    instant = Instant(ts, action, State.COMPLETED)
    name = instant_file_name(instant, 1)
    completed = SERVICE_COMPLETES_AS.get(action, action)
    assert name == f"{ts}.{completed.value}"
    assert parse_instant_file_name(name) == Instant(ts, completed, State.COMPLETED)
    assert instant_file_name(parse_instant_file_name(name), 1) == name  # type: ignore[arg-type]


@given(instant_times, instant_times, st.sampled_from(list(Action)))
def test_completed_layout2_file_names_round_trip(ts: str, done: str, action: Action) -> None:
    instant = Instant(ts, action, State.COMPLETED, done)
    name = instant_file_name(instant, 2)
    completed = SERVICE_COMPLETES_AS.get(action, action)
    assert name == f"{ts}_{done}.{completed.value}"
    assert parse_instant_file_name(name) == Instant(ts, completed, State.COMPLETED, done)


def test_commit_inflight_is_bare_inflight_on_both_layouts() -> None:
    for layout in (1, 2):
        assert instant_file_name(Instant("20240101000000000", Action.COMMIT, State.INFLIGHT), layout) == (
            "20240101000000000.inflight"
        )
    assert parse_instant_file_name("20240101000000.inflight") == Instant(
        "20240101000000", Action.COMMIT, State.INFLIGHT
    )


def test_service_actions_complete_as_write_actions() -> None:
    ts, done = "20240101000000000", "20240101000001000"
    assert Instant(ts, Action.COMPACTION, State.COMPLETED).file_name(1) == f"{ts}.commit"
    assert Instant(ts, Action.LOG_COMPACTION, State.COMPLETED).file_name(1) == f"{ts}.deltacommit"
    assert Instant(ts, Action.CLUSTERING, State.COMPLETED, done).file_name(2) == f"{ts}_{done}.replacecommit"
    assert Instant(ts, Action.COMPACTION, State.COMPLETED, done).file_name(2) == f"{ts}_{done}.commit"
    assert Instant(ts, Action.CLUSTERING, State.REQUESTED).file_name(2) == f"{ts}.clustering.requested"


def test_layout2_completed_needs_completion_time() -> None:
    with pytest.raises(ValueError, match="completion time"):
        instant_file_name(Instant("20240101000000000", Action.COMMIT, State.COMPLETED), 2)


@pytest.mark.parametrize(
    "name",
    [
        "hoodie.properties",
        "hoodie.properties.backup",
        "archived",
        "history",
        ".aux",
        "2024.commit",
        "20240101000000000.commit.crc",
        ".20240101000000000.commit.crc",
        "20240101000000000.commit.done",
    ],
)
def test_non_instant_files_are_ignored(name: str) -> None:
    assert parse_instant_file_name(name) is None


def test_unknown_action_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="frobnicate"):
        parse_instant_file_name("20240101000000000.frobnicate")


@pytest.mark.parametrize(
    "name",
    [
        "20261301000000000.commit.requested",  # month 13
        "20260132000000000.clean.requested",  # day 32
        "20260230000000.commit",  # 30 February
        "20260101250000000.inflight",  # hour 25
        "20260101006000000.commit",  # minute 60
        "00010000000000000.commit",  # year 1, month 0
        "20260101000000000_20269901000000000.deltacommit",  # the completion time
    ],
)
def test_an_impossible_date_in_a_file_name_is_corrupt_naming_the_file(name: str) -> None:
    with pytest.raises(CorruptFileError, match="is not a date and time") as raised:
        parse_instant_file_name(name)
    assert raised.value.where == name and raised.value.hint is not None


def test_hudi_s_reserved_instant_times_are_instants() -> None:
    for name in ("00000000000000.deltacommit", "00000000000001.commit", "00000000000000010.deltacommit"):
        parsed = parse_instant_file_name(name)
        assert parsed is not None and parsed.timestamp == name.split(".")[0]


def test_instant_helpers() -> None:
    instant = Instant("20240101000000000", Action.COMPACTION, State.INFLIGHT)
    assert instant.is_pending and not instant.is_completed
    assert instant.completed_action is Action.COMMIT
    done = instant.with_state(State.COMPLETED, "20240101000002000")
    assert done.is_completed and done.completion_time == "20240101000002000"
    assert "compaction" in str(done) and "20240101000002000" in str(done)
    requested = instant.with_state(State.REQUESTED)
    assert sorted([done, instant, requested], key=Instant.sort_key) == [requested, instant, done]


def test_instant_times_parse_and_format() -> None:
    assert is_instant_time("20240102030405678") and is_instant_time("20240102030405")
    assert not is_instant_time("2024010203040") and not is_instant_time("202401020304056")
    moment = parse_instant_time("20240102030405678")
    assert moment == datetime(2024, 1, 2, 3, 4, 5, 678000)
    assert format_instant_time(moment) == "20240102030405678"
    assert parse_instant_time("20240102030405") == datetime(2024, 1, 2, 3, 4, 5)
    with pytest.raises(ValueError):
        parse_instant_time("not-a-time")


def test_epoch_ms_and_wall_clock() -> None:
    assert instant_time_to_epoch_ms("19700101000001000", "UTC") == 1000
    now = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    assert wall_clock_in_timezone(now, "UTC") == datetime(2024, 5, 6, 7, 8, 9)
