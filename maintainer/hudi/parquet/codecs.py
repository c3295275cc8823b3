"""The Parquet codecs maintainer writes base files in, by Hudi's names
(``hoodie.parquet.compression.codec``), with the levels each takes: read from the manifest's
``compaction.parquet_compression`` and from a table's ``hoodie.properties``."""

from __future__ import annotations

PARQUET_CODEC_LEVELS = {"gzip": (1, 9), "zstd": (1, 22), "snappy": None, "uncompressed": None}
"""The codecs maintainer writes (Hudi's names) and their level ranges (None: no level)."""


def parse_parquet_compression(text: str) -> tuple[str, int | None]:
    """``codec`` or ``codec:level`` (e.g. ``gzip``, ``zstd:3``) as (codec, level or None)."""
    codec, _, level_text = text.strip().lower().partition(":")
    codecs = ", ".join(PARQUET_CODEC_LEVELS)
    if codec not in PARQUET_CODEC_LEVELS:
        raise ValueError(f"'{text}' is not a Parquet codec maintainer writes: use one of {codecs}")
    if not level_text:
        return codec, None
    levels = PARQUET_CODEC_LEVELS[codec]
    if levels is None:
        raise ValueError(f"'{text}': {codec} takes no level (levels: gzip:1-9, zstd:1-22)")
    if not level_text.isdigit() or not levels[0] <= int(level_text) <= levels[1]:
        raise ValueError(
            f"'{text}': the {codec} level must be a whole number from {levels[0]} to {levels[1]}"
        )
    return codec, int(level_text)
