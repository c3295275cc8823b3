"""The library's log records through the CLI: ``--log-format json`` makes each one a JSON line with
its logger and structured fields, and a host that attaches its own handler to ``maintainer``
receives apply's records (fields included, secrets masked) and keeps nothing of the CLI's."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from tests.e2e.conftest import ProjectWriter
from tests.support.metadata_tables import Project, local_cow_project

SERVICES = "compaction: {enabled: false}\narchive: {enabled: false}\nclean: {policy: keep_latest_file_versions, file_versions_retained: 1}"  # noqa: E501
SECRET = "tok-logging-9f3e"


class Collected(logging.Handler):
    """A host's handler: keeps every record it receives."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def planned(bare_project: ProjectWriter, tmp_path: Path, sessions: list[object]) -> Project:
    maintained = local_cow_project(bare_project, tmp_path, SERVICES, commits=4, seed=3)
    assert maintained.cli("plan") == 0
    return maintained


@pytest.fixture
def host() -> Iterator[Collected]:
    """A handler attached to ``maintainer`` as Airflow or Dagster would, at DEBUG."""
    logger = logging.getLogger("maintainer")
    handler, level = Collected(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def attr(record: logging.LogRecord, name: str) -> Any:
    """A field of a record (set through ``extra``: unknown to the type checker)."""
    return getattr(record, name)


def test_json_log_format_makes_every_line_of_apply_an_object_with_its_node_fields(
    planned: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--log-format", "json", "apply", "--project-dir", str(planned.root)]) == 0
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.splitlines()]  # every line parses
    assert err == "" and len(records) > 4
    assert all({"ts", "level", "msg"} <= set(record) for record in records)
    nodes = [r for r in records if r.get("event") in ("node_start", "node_end")]
    assert {(r["event"], r["table"], r["service"], r["node"]) for r in nodes} >= {
        ("node_start", "t", "clean", "t.clean"),
        ("node_end", "t", "clean", "t.clean"),
        ("node_end", "t", "rollback", "t.rollback"),
    }
    assert all(r["logger"] == "maintainer.commands.progress" for r in nodes)
    (applying,) = [r for r in records if r.get("event") == "applying"]
    assert applying["logger"] == "maintainer.commands.apply_cmd" and applying["nodes"] == 2
    assert applying["plan_id"] == json.loads((planned.root / "target/plan/plan.json").read_text())["plan_id"]


def test_a_host_handler_receives_apply_records_with_their_fields_and_secrets_masked(
    planned: Project, host: Collected, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", SECRET)
    root_handlers = list(logging.getLogger("maintainer").handlers)
    assert main(["apply", "--auto-approve", "--project-dir", str(planned.root), "--select", "t", SECRET]) == 0
    assert logging.getLogger("maintainer").handlers == root_handlers, "the CLI's handler is gone"

    by_event: dict[str, list[logging.LogRecord]] = {}
    for record in host.records:
        by_event.setdefault(getattr(record, "event", ""), []).append(record)
    (clean_end,) = [r for r in by_event["node_end"] if attr(r, "service") == "clean"]
    assert clean_end.name == "maintainer.commands.progress"
    assert (attr(clean_end, "table"), attr(clean_end, "node")) == ("t", "t.clean")
    assert attr(clean_end, "data")["status"] == "success"
    runs = [r for r in by_event["node_done"] if attr(r, "node") == "t.clean"]  # the runner, at DEBUG
    assert runs and runs[0].name == "maintainer.runner.apply" and runs[0].levelno == logging.DEBUG
    assert attr(runs[0], "plan_id") and attr(runs[0], "service") == "clean"
    written = by_event["instant_written"]  # the timeline writer: every state of the clean's instant
    assert {attr(r, "data")["state"] for r in written} >= {"REQUESTED", "INFLIGHT", "COMPLETED"}
    assert all(r.name == "maintainer.hudi.instants.writer" and attr(r, "instant") for r in written)
    (unmatched,) = by_event["unmatched_selection"]  # the selection names the secret: masked
    assert unmatched.levelno == logging.WARNING and SECRET not in unmatched.getMessage()
    assert "*****" in unmatched.getMessage()
    out, err = capsys.readouterr()
    assert "OK t.clean" in out and "warning: " in err and SECRET not in out + err
