"""Diagnostics print user text literally, never as rich markup."""

from __future__ import annotations

import json

import pytest

from maintainer.commands.console_log import console_logging, log_event
from maintainer.console import configure, print_error, print_warning, settings, stdout, summary
from maintainer.logs import get_logger

log = get_logger("maintainer.runner.apply")


@pytest.mark.parametrize("printer", [print_error, print_warning])
def test_user_text_with_markup_brackets_is_printed_as_is(printer, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    printer('bad value "[/bold]" in [tables/a.yml]')
    assert '"[/bold]" in [tables/a.yml]' in capsys.readouterr().err


def test_json_log_format_makes_every_line_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    configure(log_format="json")
    stdout.print("first line\nsecond [bold]line[/bold]")
    print_warning("careful")
    print_error("broken")
    with console_logging():
        log_event(log, "node_end", "[green]OK[/green] t.clean", node="t.clean", seconds=0.5)
    summary("Apply complete: no changes made.", status="success")
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["level"], r["msg"]) for r in records] == [
        ("info", "first line"),
        ("info", "second line"),
        ("warn", "careful"),
        ("error", "broken"),
        ("info", "OK t.clean"),
        ("info", "Apply complete: no changes made."),
    ]
    assert records[4]["event"] == "node_end" and records[4]["node"] == "t.clean"
    assert records[5]["event"] == "summary" and all(r["ts"].endswith("Z") for r in records)


def test_quiet_keeps_errors_and_the_closing_line(capsys: pytest.CaptureFixture[str]) -> None:
    configure(quiet=True)
    stdout.print("progress")
    with console_logging():
        log_event(log, "node_start", "1 of 2 START t.clean")
    summary("Plan: 1 file to delete")
    print_error("broken")
    out, err = capsys.readouterr()
    assert out == "Plan: 1 file to delete\n"
    assert "broken" in err


def test_no_color_leaves_no_escape_codes(capsys: pytest.CaptureFixture[str]) -> None:
    configure(color=False)
    assert settings.color is False and stdout.color_system is None
    stdout.print("[bold red]ERROR[/bold red] t.clean")
    assert capsys.readouterr().out == "ERROR t.clean\n"


def test_every_printed_line_masks_secrets_as_text_and_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    configure()
    stdout.print("remote sc://h/;token=tok-123456")
    print_error("cannot reach sc://h/;token=tok-123456")
    print_warning("tok-123456")
    summary("done with tok-123456")
    out, err = capsys.readouterr()
    assert "tok-123456" not in out + err and out.count("*****") == 2 and err.count("*****") == 2
    configure(log_format="json")
    with console_logging():
        log_event(log, "spark_start", "starting Spark", spark="sc://h/;token=tok-123456")
    print_error("tok-123456")
    stdout.print("tok-123456")
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 3 and "tok-123456" not in json.dumps(records)
    assert records[0]["spark"] == "sc://h/;token=*****"
    configure()


def test_control_characters_print_as_visible_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    from maintainer.console import literal, printable

    assert (
        printable("a\x1b[2Kb\x07\r\u202etxt.exe\nnext\tcol")
        == "a\\x1b[2Kb\\x07\\x0d\\u202etxt.exe\nnext\tcol"
    )
    assert literal("[red]\x1b[1A") == "\\[red]\\x1b[1A"
    configure()
    print_error("bad name p\x1b[1A\x1b[2K")
    summary("done \x1b[2J")
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "p\\x1b[1A\\x1b[2K" in err and "done \\x1b[2J" in out


def test_printing_under_a_progress_display_neither_loops_nor_leaks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a terminal a progress display proxies sys.stdout and sys.stderr through the console:
    the consoles' masking stream writes past the proxy, as rich does (or it would loop)."""
    import threading

    from rich.progress import Progress

    from maintainer.console import stderr

    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    configure()
    monkeypatch.setattr(stderr, "_force_terminal", True)
    done = threading.Event()

    def show() -> None:
        with Progress(console=stderr, transient=True) as bar:
            bar.add_task("x", total=1)
            stdout.print("under the bar tok-123456")
            print_warning("warned tok-123456")
        done.set()

    thread = threading.Thread(target=show, daemon=True)
    thread.start()
    thread.join(20)
    assert done.is_set()
    out, err = capsys.readouterr()
    assert "under the bar *****" in out and "warned *****" in err and "tok-123456" not in out + err
