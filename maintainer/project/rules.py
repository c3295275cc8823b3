"""Hudi's cross-field rules, checked on a resolved table (HUDI.md §5).

Each rule blames the most specific value that takes part in it, so the message
points at the line a user most likely has to change.
"""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.errors import ManifestError
from maintainer.project.inheritance import Provenance
from maintainer.project.models import TableSpec
from maintainer.project.services import ArchiveSpec, CleanSpec, CompactionSpec, SavepointsSpec
from maintainer.project.yamlsrc import Path_


def check_table_rules(spec: TableSpec, provenance: Provenance) -> list[ManifestError]:
    problems: list[ManifestError] = []
    context = f"table '{spec.name}'"

    def fail(message: str, hint: str, candidates: Sequence[Path_]) -> None:
        blamed = next((path for path in candidates if provenance.is_set(path)), candidates[-1])
        problems.append(ManifestError(f"{context}: {message}", where=str(provenance.mark(blamed)), hint=hint))

    archive, clean = spec.settings_of(ArchiveSpec), spec.settings_of(CleanSpec)
    if archive is not None and clean is not None and archive.keep_min_commits <= clean.commits_retained:
        fail(
            f"archive.keep_min_commits ({archive.keep_min_commits}) must be greater than "
            f"clean.commits_retained ({clean.commits_retained})",
            f"raise keep_min_commits to at least {clean.commits_retained + 1} or lower commits_retained: "
            "the cleaner needs the retained commits on the active timeline",
            [("archive", "keep_min_commits"), ("clean", "commits_retained"), ("archive",)],
        )
    if archive is not None and archive.keep_max_commits <= archive.keep_min_commits:
        fail(
            f"archive.keep_max_commits ({archive.keep_max_commits}) must be greater than "
            f"archive.keep_min_commits ({archive.keep_min_commits})",
            f"raise keep_max_commits to at least {archive.keep_min_commits + 1}",
            [("archive", "keep_max_commits"), ("archive", "keep_min_commits"), ("archive",)],
        )
    compaction = spec.settings_of(CompactionSpec)
    if compaction is not None:
        strategy = compaction.strategy
        if strategy.name == "partition_regex" and not strategy.partition_regex:
            fail(
                "compaction.strategy.name partition_regex needs strategy.partition_regex",
                "add 'partition_regex: <regular expression of the partitions to compact>'",
                [("compaction", "strategy", "name"), ("compaction",)],
            )
        if strategy.partition_regex and strategy.name != "partition_regex":
            fail(
                f"compaction.strategy.partition_regex is only used with name: partition_regex "
                f"(name is {strategy.name})",
                "set strategy.name: partition_regex or remove partition_regex",
                [("compaction", "strategy", "partition_regex"), ("compaction",)],
            )
    savepoints = spec.settings_of(SavepointsSpec)
    if savepoints is not None and not savepoints.instants and savepoints.rolling is None:
        fail(
            "savepoints needs 'instants' or 'rolling'",
            "list instants: [<commit time>, ...] and/or rolling: {every: 1d, keep: 7}, or set enabled: false",
            [("savepoints",)],
        )
    return problems
