"""Tables as they were just before one of their instants, for golden tests of planners on the
real Hudi fixtures: the timeline without that instant and every later one; the files those
instants wrote are then uncommitted (written by instants the timeline does not hold), so the
view does not show them."""

from __future__ import annotations

from pathlib import Path

from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.storage import Storage
from tests.support.fixtures import fixture_names_holding


def state_before(table_path: Path, instant_time: str) -> TableState:
    """The table at ``table_path`` as read just before ``instant_time`` was requested."""
    storage = Storage(str(table_path))
    config = load_config(storage)
    timeline = load_timeline(storage, config)
    earlier = timeline.filter(e for e in timeline.entries if e.timestamp < instant_time)
    return read_table_state(storage, verify=False, config=config, timeline=earlier)


def clustering_fixture_names() -> list[str]:
    """The fixtures whose table ran a clustering (a ``.clustering.requested`` in the zip)."""
    return fixture_names_holding(".clustering.requested")
