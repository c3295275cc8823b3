"""The CLI's handler: log records printed as the command line always printed them (warnings and
errors on stderr, the rest on stdout, --quiet, --log-format json), installed for one invocation."""

from __future__ import annotations

import json
import logging

import pytest

from maintainer.commands.console_log import ConsoleHandler, console_logging, log_event
from maintainer.console import configure
from maintainer.logs import fields, get_logger

log = get_logger("maintainer.runner.apply")


def test_records_print_as_the_console_printed_them(capsys: pytest.CaptureFixture[str]) -> None:
    configure(color=False)
    with console_logging():
        log.warning("stale [table] t", extra=fields(table="t"))
        log.error("broken")
        log.info("results in [target]/run_results.json")
        log_event(log, "node_end", "[green]OK[/green] t.clean", node="t.clean")
        log.debug("not shown")
    out, err = capsys.readouterr()
    assert err == "warning: stale [table] t\nerror: broken\n"
    assert out == "results in [target]/run_results.json\nOK t.clean\n"


def test_quiet_keeps_warnings_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    configure(quiet=True)
    with console_logging():
        log.info("progress")
        log.warning("careful")
    out, err = capsys.readouterr()
    assert out == "" and err == "warning: careful\n"


def test_json_log_format_prints_each_record_as_one_object_on_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure(log_format="json")
    with console_logging():
        log_event(log, "node_start", "1 of 2 START [bold]t.clean[/bold]", node="t.clean", index=1)
        log.warning("careful", extra=fields(plan_id="p1"))
    out, err = capsys.readouterr()
    start, warning = [json.loads(line) for line in out.splitlines()]
    assert err == ""
    assert (start["msg"], start["table"], start["service"]) == ("1 of 2 START t.clean", "t", "clean")
    assert start["index"] == 1 and start["event"] == "node_start"
    assert "markup" not in start and start["logger"] == "maintainer.runner.apply"
    assert (warning["level"], warning["plan_id"]) == ("warn", "p1")


def test_the_handler_and_the_level_are_undone_after_the_invocation() -> None:
    logger = logging.getLogger("maintainer")
    before = list(logger.handlers)
    assert logger.level == logging.NOTSET
    with console_logging() as handler:
        assert isinstance(handler, ConsoleHandler) and handler in logger.handlers
        assert logger.level == logging.INFO
    assert logger.handlers == before and logger.level == logging.NOTSET
    logger.setLevel(logging.WARNING)  # a host's choice is kept
    try:
        with console_logging():
            assert logger.level == logging.WARNING
    finally:
        logger.setLevel(logging.NOTSET)
