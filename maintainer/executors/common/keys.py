"""Record keys of Arrow rows, vectorised: ``_hoodie_record_key`` where the table populates it,
else Hudi's key format over the record key fields (``v`` for one field, ``f1:v1,f2:v2`` for
several; a null value is ``__null__``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from maintainer.hudi.records.merge import RECORD_KEY_COLUMN, MergeRules

NULL_KEY = "__null__"


def _as_text(column: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    text = column if pa.types.is_string(column.type) else pc.cast(column, pa.string())
    return pc.fill_null(text, NULL_KEY)


def computed_keys(table: pa.Table, fields: tuple[str, ...]) -> pa.ChunkedArray | pa.Array:
    if len(fields) == 1:
        return _as_text(_field(table, fields[0]))
    pieces: list[pa.ChunkedArray | pa.Array | str] = []
    for index, name in enumerate(fields):
        pieces.append(f"{',' if index else ''}{name}:")
        pieces.append(_as_text(_field(table, name)))
    return pc.binary_join_element_wise(*pieces, "")


def _field(table: pa.Table, name: str) -> pa.ChunkedArray | pa.Array:
    if name in table.column_names:
        return table.column(name)
    return pa.nulls(table.num_rows, pa.string())


def record_keys(table: pa.Table, rules: MergeRules) -> pa.Array:
    """One key per row of ``table``, as a plain string array."""
    if rules.use_meta_key and RECORD_KEY_COLUMN in table.column_names:
        meta = table.column(RECORD_KEY_COLUMN)
        if meta.null_count == 0:
            keys = meta if pa.types.is_string(meta.type) else pc.cast(meta, pa.string())
        else:
            keys = pc.coalesce(pc.cast(meta, pa.string()), computed_keys(table, rules.record_key_fields))
    else:
        keys = computed_keys(table, rules.record_key_fields)
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks != 1 else keys.chunk(0)
    return keys
