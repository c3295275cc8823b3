"""Parquet data blocks: the content is a whole Parquet file (``hoodie.logfile.data.block.format``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError
from maintainer.hudi.logformat.model import BlockType, LogBlock


def block_parquet_table(block: LogBlock) -> pa.Table:
    if block.is_corrupt:
        raise CorruptFileError(f"corrupt log block: {block.corrupt_reason}", where=block.location)
    if block.block_type is not BlockType.PARQUET_DATA:
        raise CorruptFileError(f"a {block.block_type.name} block holds no Parquet data", where=block.location)
    try:
        return pq.read_table(pa.BufferReader(block.content))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise CorruptFileError(f"Parquet data block does not decode: {exc}", where=block.location) from exc
