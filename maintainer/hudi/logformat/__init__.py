"""Hudi's log file format, read and written byte for byte (``HUDI.md`` §4).

Reading::

    blocks = read_log_file(storage, path)          # or read_log_blocks(data, where)
    for block in effective_blocks(blocks, is_committed):
        block.instant_time                           # header INSTANT_TIME
        block_records(block)                         # AVRO_DATA / CDC_DATA -> list of dicts
        block_table(block)                           # AVRO_DATA / CDC_DATA / PARQUET_DATA -> pa.Table
        block_deletes(block)                         # DELETE -> list[DeleteRecord]
        block_rollback(block)                        # COMMAND -> RollbackCommand

Writing: ``avro_data_block``, ``delete_block``, ``rollback_command_block`` return block bytes;
``append_blocks`` adds them to an existing file's bytes; ``next_log_file_v6`` /
``new_log_file_v8`` name new log files.
"""

from maintainer.hudi.logformat.arrow import arrow_schema, block_table, records_to_table
from maintainer.hudi.logformat.avro_block import block_records, decode_avro_content, encode_avro_content
from maintainer.hudi.logformat.command_block import RollbackCommand, block_rollback
from maintainer.hudi.logformat.delete_block import (
    DeleteRecord,
    OrderingType,
    OrderingValue,
    block_deletes,
    decode_delete_content,
    encode_delete_content,
)
from maintainer.hudi.logformat.model import (
    MAGIC,
    BlockMetadata,
    BlockType,
    CommandType,
    HeaderKey,
    LogBlock,
)
from maintainer.hudi.logformat.naming import new_log_file_v8, next_log_file_v6
from maintainer.hudi.logformat.parquet_block import block_parquet_table
from maintainer.hudi.logformat.reader import iter_log_blocks, read_log_blocks, read_log_file
from maintainer.hudi.logformat.scan import effective_blocks
from maintainer.hudi.logformat.writer import (
    append_blocks,
    avro_data_block,
    avro_data_block_from_table,
    delete_block,
    encode_block,
    rollback_command_block,
)

__all__ = [
    "MAGIC",
    "BlockMetadata",
    "BlockType",
    "CommandType",
    "DeleteRecord",
    "HeaderKey",
    "LogBlock",
    "OrderingType",
    "OrderingValue",
    "RollbackCommand",
    "append_blocks",
    "arrow_schema",
    "avro_data_block",
    "avro_data_block_from_table",
    "block_deletes",
    "block_parquet_table",
    "block_records",
    "block_rollback",
    "block_table",
    "decode_avro_content",
    "decode_delete_content",
    "delete_block",
    "effective_blocks",
    "encode_avro_content",
    "encode_block",
    "encode_delete_content",
    "iter_log_blocks",
    "new_log_file_v8",
    "next_log_file_v6",
    "read_log_blocks",
    "read_log_file",
    "records_to_table",
    "rollback_command_block",
]
