"""A service reads another's settings by its block, through the installed catalog, with the
defaults its owner declares (services do not import each other)."""

import pytest

from maintainer.catalog import Catalog, CatalogError, ServiceDeclaration, installed, installing
from maintainer.project.models import TableSpec
from maintainer.project.settings_types import FrozenModel
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.common.neighbour_settings import clean_retention, compaction_defaults, compaction_of
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger

BASE = {"name": "t", "path": "/t", "manifest": "tables/t.yml", "line": 1}


def test_the_blocks_a_table_has_are_read_as_its_owner_s_models() -> None:
    timed = CompactionSpec(trigger=CompactionTrigger(strategy="time_elapsed", max_delta_commits=8))
    spec = TableSpec.of(**BASE, clean=CleanSpec(commits_retained=4), compaction=timed)
    retention, compaction = clean_retention(spec), compaction_of(spec)
    assert retention is not None and retention.commits_retained == 4
    assert compaction is not None
    assert (compaction.trigger.strategy, compaction.trigger.max_delta_commits) == ("time_elapsed", 8)


def test_a_block_the_table_leaves_out_is_none_and_the_defaults_are_the_owner_s() -> None:
    spec = TableSpec.of(**BASE)
    assert clean_retention(spec) is None and compaction_of(spec) is None
    trigger = compaction_defaults().trigger
    assert (trigger.strategy, trigger.max_delta_commits) == (
        "num_commits",
        CompactionTrigger().max_delta_commits,
    )


class Stand(FrozenModel):
    enabled: bool = True


def test_a_block_whose_settings_lack_what_is_read_is_a_catalog_error() -> None:
    without = tuple(s for s in installed().services if s.block != "compaction")
    stand_in = ServiceDeclaration("compaction", "compaction", (), settings=Stand)
    lacking = pytest.raises(CatalogError, match="the compaction block's settings have no trigger")
    with installing(Catalog((*without, stand_in))), lacking:
        compaction_defaults()
    undeclared = pytest.raises(
        CatalogError, match="no installed service declares the settings of the compaction"
    )
    with installing(Catalog(without)), undeclared:
        compaction_defaults()
