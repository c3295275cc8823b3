"""The manifest's ``clean`` block: its settings with Hudi's names and defaults (HUDI.md §5)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from maintainer.project.settings_types import FrozenModel, PositiveInt

CleanPolicy = Literal["keep_latest_commits", "keep_latest_file_versions", "keep_latest_by_hours"]
POLICY_BY_RETAINED_KEY = {
    "file_versions_retained": "keep_latest_file_versions",
    "hours_retained": "keep_latest_by_hours",
    "commits_retained": "keep_latest_commits",
}


class CleanSpec(FrozenModel):
    """Delete file slices no query needs any more. Without a policy, it is inferred (as Hudi does)
    from the one *_retained option given, else keep_latest_commits."""

    enabled: bool = True
    policy: CleanPolicy = "keep_latest_commits"
    """hoodie.clean.policy."""
    commits_retained: PositiveInt = 10
    """hoodie.clean.commits.retained."""
    file_versions_retained: PositiveInt = 3
    """hoodie.clean.fileversions.retained."""
    hours_retained: PositiveInt = 24
    """hoodie.clean.hours.retained."""
    incremental: bool = True
    """hoodie.cleaner.incremental.mode."""
    trigger_strategy: Literal["num_commits"] = "num_commits"
    """hoodie.clean.trigger.strategy (NUM_COMMITS is Hudi's only one)."""
    max_commits: PositiveInt = 1
    """hoodie.clean.max.commits: completed commits since the last clean's last completed commit
    needed before a new clean is planned."""

    @model_validator(mode="before")
    @classmethod
    def _infer_policy(cls, data: Any) -> Any:
        if isinstance(data, dict) and "policy" not in data:
            given = [key for key in POLICY_BY_RETAINED_KEY if key in data]
            if len(given) == 1:
                return {**data, "policy": POLICY_BY_RETAINED_KEY[given[0]]}
        return data
