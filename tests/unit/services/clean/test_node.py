"""The clean node's actions: a pending clean to finish is named with what it deletes."""

from __future__ import annotations

import hashlib

from maintainer.artifact.model import FinishPendingClean
from maintainer.services.clean.node import PendingClean, _actions, requested_sha256


def test_a_pending_clean_is_planned_with_its_sorted_files_and_the_hash_of_its_plan() -> None:
    data = b"the .clean.requested bytes"
    pending = PendingClean("20250101000000000", frozenset({"p=2/b.parquet", "p=1/a.parquet"}),
                           frozenset(), requested_sha256(data))  # fmt: skip
    (action,) = _actions([pending], [], [])
    assert isinstance(action, FinishPendingClean) and action.target == "20250101000000000"
    assert action.paths == ("p=1/a.parquet", "p=2/b.parquet")
    assert action.sha256 == hashlib.sha256(data).hexdigest()
