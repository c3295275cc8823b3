"""The codec of the base files a compaction writes, as a Hudi user would want it.

A new base file keeps the codec of the slice's current base file (read from its footer): a
table written with snappy or zstd stays so, whatever wrote it. The level is not in a Parquet
file: it is the configured one when that names the same codec, else Hudi's (gzip 6, zstd 3).
A slice without a base file (or whose base file is in a codec pyarrow does not write: LZO,
Hadoop LZ4) takes the configured codec: the manifest's ``compaction.parquet_compression``,
else ``hoodie.parquet.compression.codec`` when the table's ``hoodie.properties`` carries it
(a writer option of Hudi's ``HoodieStorageConfig``, default gzip, that Hudi does not write there
itself; a table set up by hand or by another tool may have it), else Hudi's default, gzip.
The compaction plan does not change: the codec is decided when each slice is written.

A table whose record key is one field has that field written without a dictionary, as the two
unique meta columns are (:func:`unique_key_columns`).
"""

from __future__ import annotations

from dataclasses import replace

from maintainer.errors import ApplyError
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.parquet.basefile import HUDI_CODEC_LEVELS, ParquetSettings
from maintainer.hudi.parquet.codecs import parse_parquet_compression

CODEC_PROPERTY = "hoodie.parquet.compression.codec"
DEFAULT_CODEC = "gzip"


def _writer_codec(codec: str) -> str:
    return "none" if codec == "uncompressed" else codec


def configured_settings(config: TableConfig, manifest_codec: str | None = None) -> ParquetSettings:
    """The writer settings for slices without a usable base file codec (see the module)."""
    source, text = "the manifest's compaction.parquet_compression", manifest_codec
    if text is None and config.raw.get(CODEC_PROPERTY, "").strip():
        source, text = f"hoodie.properties' {CODEC_PROPERTY}", config.raw[CODEC_PROPERTY]
    codec, level = DEFAULT_CODEC, None
    if text is not None:
        try:
            codec, level = parse_parquet_compression(text)
        except ValueError as exc:
            raise ApplyError(
                f"{source}: {exc}",
                hint="set compaction.parquet_compression in the manifest to a codec maintainer writes",
            ) from exc
    if level is None:
        level = HUDI_CODEC_LEVELS.get(codec)
    return ParquetSettings(
        compression=_writer_codec(codec),
        compression_level=level,
        populate_meta_fields=config.populate_meta_fields,
        unique_columns=unique_key_columns(config),
    )


def unique_key_columns(config: TableConfig) -> tuple[str, ...]:
    """The record key field when the key is that one field: distinct in every base file (each
    key is in one file group, once), so it is written without a dictionary. A key of several
    fields has none: each field alone may repeat."""
    fields = config.record_key_fields
    return fields if len(fields) == 1 else ()


def slice_settings(configured: ParquetSettings, base_codec: str | None) -> ParquetSettings:
    """``configured`` with the codec of the slice's base file (None: none, or not writable)."""
    if base_codec is None or base_codec == configured.compression:
        return configured
    return replace(configured, compression=base_codec, compression_level=HUDI_CODEC_LEVELS.get(base_codec))
