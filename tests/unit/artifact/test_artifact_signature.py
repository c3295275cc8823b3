"""Signed plans: HMAC over the body and the payload hashes, verified when the key is set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maintainer.artifact.canonical import compute_plan_id
from maintainer.artifact.directory import (
    PLAN_FILE,
    PLAN_KEY_ENV,
    PLAN_KEY_FILE_ENV,
    SIGNATURE_FIELD,
    UNSIGNED_WARNING,
    UNVERIFIED_WARNING,
    plan_key,
    read_plan,
    sha256_hex,
    write_plan,
)
from maintainer.errors import PlanError
from tests.unit.artifact.test_directory import PAYLOAD, sample_plan, write

KEY = b"team-secret-key"


def signed(directory: Path, key: bytes = KEY) -> dict[str, object]:
    write_plan(directory, sample_plan(), {"trips.clean.requested": PAYLOAD}, "# plan\n", {}, key)
    data: dict[str, object] = json.loads((directory / PLAN_FILE).read_text())
    return data


def rewrite_with_recomputed_id(directory: Path, edit: dict[str, object]) -> None:
    """An edit as an attacker makes it: the plan id recomputed, the signature left as it was."""
    data = json.loads((directory / PLAN_FILE).read_text())
    data.update(edit)
    body = {k: v for k, v in data.items() if k not in ("plan_id", "payloads", SIGNATURE_FIELD)}
    data["plan_id"] = compute_plan_id(body)
    (directory / PLAN_FILE).write_text(json.dumps(data))


def test_a_signed_plan_carries_an_algorithm_tagged_hmac_outside_the_plan_id(tmp_path: Path) -> None:
    data = signed(tmp_path)
    signature = str(data[SIGNATURE_FIELD])
    assert signature.startswith("hmac-sha256:") and len(signature) == len("hmac-sha256:") + 64
    assert data["plan_id"] == compute_plan_id(sample_plan().body())  # the signature is not hashed
    saved = read_plan(tmp_path, KEY)
    assert saved.warnings == () and saved.plan == sample_plan()
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    assert not [data for data in written if KEY in data]  # the key itself is written nowhere


def test_an_edit_with_a_recomputed_plan_id_fails_the_signature(tmp_path: Path) -> None:
    signed(tmp_path)
    rewrite_with_recomputed_id(tmp_path, {"target": "prod"})
    read_plan(tmp_path, allow_unverified=True)  # without the key, only the (recomputed) plan id is checked
    with pytest.raises(PlanError, match="signature does not match") as refused:
        read_plan(tmp_path, KEY)
    assert refused.value.hint is not None and PLAN_KEY_ENV in refused.value.hint


def test_payload_hashes_are_covered_by_the_signature(tmp_path: Path) -> None:
    signed(tmp_path)
    forged = b"Obj\x01forged"
    (tmp_path / "payloads" / "trips.clean.requested").write_bytes(forged)
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    data["payloads"] = {"trips.clean.requested": sha256_hex(forged)}
    (tmp_path / PLAN_FILE).write_text(json.dumps(data))
    assert read_plan(tmp_path, allow_unverified=True).payloads == {"trips.clean.requested": forged}
    with pytest.raises(PlanError, match="signature does not match"):
        read_plan(tmp_path, KEY)


def test_another_key_or_no_signature_is_refused_when_a_key_is_set(tmp_path: Path) -> None:
    signed(tmp_path / "other", b"another-key")
    with pytest.raises(PlanError, match="signature does not match"):
        read_plan(tmp_path / "other", KEY)
    write(tmp_path / "unsigned")
    with pytest.raises(PlanError, match=f"not signed, and {PLAN_KEY_ENV} is set"):
        read_plan(tmp_path / "unsigned", KEY)


def test_a_signed_plan_without_a_key_is_refused_unless_allowed_unverified(tmp_path: Path) -> None:
    signed(tmp_path)
    with pytest.raises(PlanError, match="the plan is signed, but no key is configured") as refused:
        read_plan(tmp_path)
    assert refused.value.where == str(tmp_path / PLAN_FILE)
    assert refused.value.hint is not None and "--allow-unverified" in refused.value.hint
    saved = read_plan(tmp_path, allow_unverified=True)
    assert saved.warnings == (UNVERIFIED_WARNING,) and saved.unverified
    assert "only the plan id was checked" in UNVERIFIED_WARNING
    verified = read_plan(tmp_path, KEY, allow_unverified=True)
    assert verified.warnings == () and not verified.unverified
    write(tmp_path / "unsigned")
    unsigned = read_plan(tmp_path / "unsigned")
    assert unsigned.warnings == () and not unsigned.unverified


def test_the_key_comes_from_the_environment_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PLAN_KEY_ENV, raising=False)
    monkeypatch.delenv(PLAN_KEY_FILE_ENV, raising=False)
    assert plan_key() is None
    key_file = tmp_path / "key"
    key_file.write_text("from-file\n")
    monkeypatch.setenv(PLAN_KEY_FILE_ENV, str(key_file))
    assert plan_key() == b"from-file"
    monkeypatch.setenv(PLAN_KEY_ENV, "from-env")
    assert plan_key() == b"from-env"
    monkeypatch.delenv(PLAN_KEY_ENV)
    key_file.write_text("  \n")
    with pytest.raises(PlanError, match="the plan key file is empty"):
        plan_key()
    monkeypatch.setenv(PLAN_KEY_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(PlanError, match="cannot read the plan key") as refused:
        plan_key()
    assert refused.value.where == str(tmp_path / "missing")


def test_show_reads_an_unsigned_plan_with_a_key_saying_apply_refuses_it(tmp_path: Path) -> None:
    write(tmp_path)
    assert read_plan(tmp_path, KEY, allow_unsigned=True).warnings == (UNSIGNED_WARNING,)
    with pytest.raises(PlanError, match="not signed"):
        read_plan(tmp_path, KEY, allow_unverified=True)  # apply's escape hatch is for signed plans
