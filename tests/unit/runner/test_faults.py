from __future__ import annotations

import pytest

from maintainer.errors import ApplyError
from maintainer.services.base import FAULT_ENV, InjectedFault, maybe_fail


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
