"""The manifest's ``archive`` block: its settings with Hudi's names and defaults, and the rules
they keep with each other and with clean's retention (HUDI.md §5)."""

from __future__ import annotations

from maintainer.catalog import RuleBreach
from maintainer.project.models import TableSpec
from maintainer.project.settings_types import FrozenModel, PositiveInt
from maintainer.services.common.neighbour_settings import clean_retention


class ArchiveSpec(FrozenModel):
    """Move old instants from the active timeline to the archived timeline."""

    enabled: bool = True
    keep_min_commits: PositiveInt = 20
    """hoodie.keep.min.commits."""
    keep_max_commits: PositiveInt = 30
    """hoodie.keep.max.commits."""
    archive_beyond_savepoint: bool = False
    """hoodie.archive.beyond.savepoint."""


def archive_rules(spec: TableSpec) -> list[RuleBreach]:
    """Archival keeps more commits than the cleaner retains, and its max above its min."""
    archive, clean = spec.settings_of(ArchiveSpec), clean_retention(spec)
    breaches: list[RuleBreach] = []
    if archive is not None and clean is not None and archive.keep_min_commits <= clean.commits_retained:
        breaches.append(
            RuleBreach(
                f"archive.keep_min_commits ({archive.keep_min_commits}) must be greater than "
                f"clean.commits_retained ({clean.commits_retained})",
                f"raise keep_min_commits to at least {clean.commits_retained + 1} or lower commits_retained: "
                "the cleaner needs the retained commits on the active timeline",
                (("archive", "keep_min_commits"), ("clean", "commits_retained"), ("archive",)),
            )
        )
    if archive is not None and archive.keep_max_commits <= archive.keep_min_commits:
        breaches.append(
            RuleBreach(
                f"archive.keep_max_commits ({archive.keep_max_commits}) must be greater than "
                f"archive.keep_min_commits ({archive.keep_min_commits})",
                f"raise keep_max_commits to at least {archive.keep_min_commits + 1}",
                (("archive", "keep_max_commits"), ("archive", "keep_min_commits"), ("archive",)),
            )
        )
    return breaches
