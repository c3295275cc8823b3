"""The archive service as the catalog knows it: its action kind, the review's rules for its
manifest block and its part of apply's closing line."""

from __future__ import annotations

from maintainer.artifact.model import ArchiveEffect, ArchiveInstant
from maintainer.catalog import ActionLabel, ServiceDeclaration, SummaryPart
from maintainer.services.archive.effects import ArchiveApplyEffects
from maintainer.services.archive.settings import ArchiveSpec, archive_rules
from maintainer.services.common.change_rules import less_is_destructive, switched_on, true_is_destructive
from maintainer.services.common.summary_parts import counted

DECLARATION = ServiceDeclaration(
    "archive",
    "archive",
    (ActionLabel("archive_instant", "instant to archive", "instants to archive", 12),),
    change_rules={
        "enabled": switched_on("archive"),
        "keep_min_commits": less_is_destructive("active timeline kept"),
        "keep_max_commits": less_is_destructive("active timeline kept"),
        "archive_beyond_savepoint": true_is_destructive("archival goes past savepoints"),
    },
    summary=(SummaryPart(6, counted("instants_archived", len, "instant", "archived")),),
    settings=ArchiveSpec,
    table_rules=archive_rules,
    records=(ArchiveInstant,),
    effect=ArchiveEffect,
    apply_effects=ArchiveApplyEffects,
)
