"""Diagnostics print user text literally, never as rich markup."""

from __future__ import annotations

import pytest

from maintainer.console import print_error, print_warning


@pytest.mark.parametrize("printer", [print_error, print_warning])
def test_user_text_with_markup_brackets_is_printed_as_is(printer, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    printer('bad value "[/bold]" in [tables/a.yml]')
    assert '"[/bold]" in [tables/a.yml]' in capsys.readouterr().err
