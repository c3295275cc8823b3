from __future__ import annotations

import pytest

from maintainer.errors import ApplyError
from maintainer.executors.faults import (
    FAULT_ENV,
    InjectedFault,
    Stopped,
    clear_stop,
    maybe_fail,
    request_stop,
    stop_requested,
)


def test_nothing_happens_without_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    maybe_fail("clean", "after_inflight")  # does not raise


def test_the_armed_point_raises_an_apply_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, "clean:after_inflight")
    with pytest.raises(InjectedFault, match="clean:after_inflight") as raised:
        maybe_fail("clean", "after_inflight")
    assert isinstance(raised.value, ApplyError)


def test_only_the_named_points_of_the_named_service_are_armed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, " clean:after_requested , compaction:after_inflight ")
    maybe_fail("clean", "after_inflight")
    maybe_fail("rollback", "after_requested")
    with pytest.raises(InjectedFault):
        maybe_fail("clean", "after_requested")
    with pytest.raises(InjectedFault):
        maybe_fail("compaction", "after_inflight")


def test_a_stop_ends_the_node_at_any_safe_point_until_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FAULT_ENV, raising=False)
    request_stop()
    try:
        assert stop_requested()
        with pytest.raises(Stopped, match=r"stopped at a safe point \(archive:after_inflight\)") as raised:
            maybe_fail("archive", "after_inflight")
        assert isinstance(raised.value, ApplyError) and "resumes" in (raised.value.hint or "")
    finally:
        clear_stop()
    assert not stop_requested()
    maybe_fail("archive", "after_inflight")  # does not raise
