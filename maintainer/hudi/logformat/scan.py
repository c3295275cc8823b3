"""Which blocks of a file slice's logs count, as Hudi's log scanner decides.

Blocks are taken in log-file order. A corrupt block is skipped. A data or delete block whose
INSTANT_TIME is not a committed instant is skipped (``is_committed``). A rollback command block
always applies, whatever its own instant (Hudi's ``AbstractHoodieLogRecordReader`` checks only
data and delete blocks against the timeline): it removes every earlier kept block whose
INSTANT_TIME is its target. What is left are the data and delete blocks to merge, in order, each
with its INSTANT_TIME.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from maintainer.hudi.logformat.command_block import block_rollback
from maintainer.hudi.logformat.model import BlockType, LogBlock


def effective_blocks(
    blocks: Iterable[LogBlock], is_committed: Callable[[str], bool] | None = None
) -> list[LogBlock]:
    kept: list[LogBlock] = []
    for block in blocks:
        if block.is_corrupt:
            continue
        if block.block_type is BlockType.COMMAND:
            target = block_rollback(block).target_instant_time
            kept = [earlier for earlier in kept if earlier.instant_time != target]
            continue
        instant = block.instant_time
        if instant is None or (is_committed is not None and not is_committed(instant)):
            continue
        kept.append(block)
    return kept
