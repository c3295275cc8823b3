"""The library's logging: the ``extra`` fields helper, the JSON formatter, masking of secrets in
the records themselves, and nothing printed by importing maintainer."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator

import pytest

from maintainer.graph import NodeId
from maintainer.logs import DATA, FIELDS, JsonFormatter, MaskSecrets, fields, get_logger

SECRET = "tok-5551234"


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept() -> Iterator[Kept]:
    """A host's handler on ``maintainer``, at DEBUG."""
    logger, handler = logging.getLogger("maintainer"), Kept()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def record(message: str, level: int = logging.INFO, **extra: object) -> logging.LogRecord:
    made = logging.LogRecord("maintainer.runner.apply", level, __file__, 1, message, None, None)
    made.__dict__.update(extra)
    return made


def test_fields_of_a_node_fill_its_table_and_service_and_leave_out_what_is_not_given() -> None:
    assert fields(node=NodeId("orders", "clean"), plan_id="p1") == {
        "table": "orders", "service": "clean", "node": "orders.clean", "plan_id": "p1",
    }  # fmt: skip
    assert fields(node="db.orders.compaction") == {
        "table": "db.orders", "service": "compaction", "node": "db.orders.compaction",
    }  # fmt: skip
    assert fields(table="t", instant="20240101000000000", event="x", seconds=0.5) == {
        "table": "t", "instant": "20240101000000000", "event": "x", DATA: {"seconds": 0.5},
    }  # fmt: skip
    assert fields() == {}


def test_fields_become_attributes_of_the_record(kept: Kept) -> None:
    get_logger("maintainer.runner.apply").warning("stale", extra=fields(node=NodeId("t", "clean"), count=2))
    (got,) = kept.records
    assert [getattr(got, name) for name in ("table", "service", "node", DATA)] == [
        "t",
        "clean",
        "t.clean",
        {"count": 2},
    ]
    assert set(FIELDS) >= {"table", "service", "instant", "plan_id", "node"}


def test_the_json_formatter_writes_one_object_with_the_fields_and_data() -> None:
    extra = fields(node="t.clean", plan_id="p1", event="node_end", status="success", message="6 files")
    line = JsonFormatter().format(record("2 of 2 OK t.clean", logging.WARNING, **extra))
    assert "\n" not in line
    got = json.loads(line)
    assert got.pop("ts").endswith("Z")
    assert got == {
        "level": "warn", "logger": "maintainer.runner.apply", "msg": "2 of 2 OK t.clean",
        "table": "t", "service": "clean", "node": "t.clean", "plan_id": "p1", "event": "node_end",
        "status": "success", "message": "6 files",
    }  # fmt: skip


def test_the_json_formatter_keeps_its_own_keys_and_formats_arguments_and_exceptions() -> None:
    made = record("%s of %d", logging.ERROR, **fields(level="spoofed", msg="spoofed", other=1))
    made.args = ("one", 2)
    try:
        raise ValueError("boom")
    except ValueError:
        made.exc_info = sys.exc_info()
    got = json.loads(JsonFormatter().format(made))
    assert (got["level"], got["msg"], got["other"]) == ("error", "one of 2", 1)
    assert "ValueError: boom" in got["exc"] and "table" not in got


def test_secrets_are_masked_in_the_record_a_host_receives(
    kept: Kept, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", SECRET)
    log = get_logger("maintainer.runner.lock")
    log.warning("cannot reach sc://h/;token=%s", SECRET, extra=fields(table=f"t-{SECRET}", url=SECRET))
    (got,) = kept.records
    assert got.getMessage() == "cannot reach sc://h/;token=*****"
    assert [getattr(got, name) for name in ("table", DATA)] == ["t-*****", {"url": "*****"}]
    assert SECRET not in JsonFormatter().format(got)


def test_get_logger_masks_once_and_names_follow_the_package() -> None:
    logger = get_logger("maintainer.services.clean")
    assert get_logger("maintainer.services.clean") is logger
    assert sum(isinstance(f, MaskSecrets) for f in logger.filters) == 1
    assert logger.parent is not None and logger.parent.name in ("maintainer.services", "maintainer")


def test_importing_maintainer_installs_only_a_null_handler_and_prints_nothing() -> None:
    code = (
        "import logging, maintainer, maintainer.runner.apply, maintainer.planning.builder\n"
        "from maintainer.logs import get_logger\n"
        "get_logger('maintainer.runner.apply').warning('not printed by a library')\n"
        "print([type(h).__name__ for h in logging.getLogger('maintainer').handlers],"
        " logging.getLogger().handlers)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['NullHandler'] []" and done.stderr == ""
