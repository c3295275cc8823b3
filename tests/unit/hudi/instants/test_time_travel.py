"""The forms of a time travel's time, as Hudi's ``formatQueryInstant`` takes them."""

from __future__ import annotations

import pytest

from maintainer.errors import UsageError
from maintainer.hudi.instants.time_travel import as_of_instant


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("20251220210123755", "20251220210123755"),
        ("20251220210123", "20251220210123999"),
        ("2025-12-20 21:01:23.755", "20251220210123755"),
        ("2025-12-20 21:01:23", "20251220210123999"),
        ("2025-12-20", "20251220000000000"),
        (" 2025-12-20 ", "20251220000000000"),
    ],
)
def test_each_form_hudi_accepts_names_an_instant(text: str, instant: str) -> None:
    assert as_of_instant(text) == instant


@pytest.mark.parametrize(
    "text",
    ["", "foo", "2025", "202512202101", "20251320210123755", "2025-02-30", "2025-12-20T21:01:23",
     "2025-12-20 21:01:23.7", "2025-12-20 25:00:00", "1e16"],
)  # fmt: skip
def test_anything_else_is_a_usage_error_naming_the_forms(text: str) -> None:
    with pytest.raises(UsageError, match="not a time Hudi's time travel accepts") as info:
        as_of_instant(text)
    assert "yyyyMMddHHmmss[SSS]" in str(info.value)
