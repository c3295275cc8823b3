"""Command blocks: a rollback of the blocks an earlier instant wrote into this file group.

No content; header INSTANT_TIME = the rollback instant, TARGET_INSTANT_TIME = the rolled-back
instant, COMMAND_BLOCK_TYPE = ``"0"`` (ROLLBACK).
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat.model import BlockType, CommandType, HeaderKey, LogBlock


@dataclass(frozen=True, slots=True)
class RollbackCommand:
    instant_time: str
    target_instant_time: str


def block_rollback(block: LogBlock) -> RollbackCommand:
    """The rollback a COMMAND block carries; CorruptFileError when the header is incomplete."""
    if block.block_type is not BlockType.COMMAND:
        raise CorruptFileError(
            f"a {block.block_type.name} block is not a command block", where=block.location
        )
    raw_type = block.header.get(HeaderKey.COMMAND_BLOCK_TYPE)
    if raw_type is None or not raw_type.isdigit():
        raise CorruptFileError(f"command block has COMMAND_BLOCK_TYPE {raw_type!r}", where=block.location)
    if int(raw_type) != CommandType.ROLLBACK:
        raise UnsupportedTableError(f"command block type {raw_type} is not a rollback", where=block.location)
    instant, target = block.instant_time, block.target_instant_time
    if instant is None or target is None:
        raise CorruptFileError(
            "rollback command block lacks INSTANT_TIME or TARGET_INSTANT_TIME", where=block.location
        )
    return RollbackCommand(instant, target)
