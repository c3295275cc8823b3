"""Secrets of the environment (``MAINTAINER_SECRET_*``, the plan key) and their masking."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.secrets import (
    MASK,
    PLAN_KEY_ENV,
    PLAN_KEY_FILE_ENV,
    is_secret_name,
    redact,
    redact_tree,
    secrets,
    secrets_in,
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MAINTAINER_SECRET_TOKEN", "MAINTAINER_SECRET_LONG", PLAN_KEY_ENV, PLAN_KEY_FILE_ENV):
        monkeypatch.delenv(name, raising=False)


def test_secret_names_are_the_prefixed_ones_and_the_plan_key() -> None:
    assert is_secret_name("MAINTAINER_SECRET_S3_KEY") and is_secret_name(PLAN_KEY_ENV)
    assert not is_secret_name("MAINTAINER_TARGET") and not is_secret_name(PLAN_KEY_FILE_ENV)
    assert not is_secret_name("AWS_SECRET_ACCESS_KEY")  # pyarrow reads it itself: never rendered


def test_values_are_masked_longest_first_and_short_ones_left(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    monkeypatch.setenv("MAINTAINER_SECRET_LONG", "tok-123456-and-more")
    monkeypatch.setenv("MAINTAINER_SECRET_SHORT", "abc")  # too short to mask
    monkeypatch.setenv(PLAN_KEY_ENV, "the-team-key")
    key_file = tmp_path / "key"
    key_file.write_text("  key-from-a-file\n")
    monkeypatch.setenv(PLAN_KEY_FILE_ENV, str(key_file))
    assert list(secrets()) == ["tok-123456-and-more", "key-from-a-file", "the-team-key", "tok-123456"]
    text = "a tok-123456-and-more b tok-123456 c the-team-key d key-from-a-file e abc"
    assert redact(text) == f"a {MASK} b {MASK} c {MASK} d {MASK} e abc"
    assert secrets_in("x tok-123456 y") == ["MAINTAINER_SECRET_TOKEN"]
    assert secrets_in("key-from-a-file") == [PLAN_KEY_FILE_ENV]


def test_trees_are_masked_in_keys_and_values_and_left_alone_without_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = {"args": {"remote": "sc://h/;token=tok-123456"}, "tok-123456": ["tok-123456", 3, None]}
    assert redact_tree(data) is data  # nothing set: not even copied
    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    assert redact_tree(data) == {"args": {"remote": f"sc://h/;token={MASK}"}, MASK: [MASK, 3, None]}


def test_the_artifact_writers_mask_what_an_error_quoted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """run_results.json, plan.md, plan_meta.json and a ledger record keep no secret an error
    message (e.g. a storage error quoting an endpoint) carried into them."""
    from maintainer.artifact.directory import META_FILE, REVIEW_FILE, write_plan
    from maintainer.runner.ledger import NodeRecord
    from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults, write_run_results
    from tests.support.plans import plan, table_plan

    monkeypatch.setenv("MAINTAINER_SECRET_TOKEN", "tok-123456")
    failed = NodeResult("t.clean", NodeRunStatus.ERROR, message="cannot reach https://u:tok-123456@h")
    results = RunResults("abc", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", (failed,))
    path = write_run_results(tmp_path, results, args={"plan_dir": "tok-123456"})
    write_plan(tmp_path / "plan", plan(table_plan("t", ())), {}, "# tok-123456\n", {"note": "tok-123456"})
    record = NodeRecord("abc", "t", "clean", "2026-01-01", "failed: tok-123456").encode()
    for text in (path.read_text(), (tmp_path / "plan" / REVIEW_FILE).read_text(),
                 (tmp_path / "plan" / META_FILE).read_text(), record.decode()):  # fmt: skip
        assert "tok-123456" not in text and MASK in text
