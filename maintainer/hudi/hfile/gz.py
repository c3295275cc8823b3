"""GZ block compression, byte for byte as both Hudi writers produce it.

Both writers frame a raw deflate stream with a fixed ten-byte gzip header (no name, no mtime,
OS byte 0: ``java.util.zip.GZIPOutputStream`` behind airlift's ``JdkGzipHadoopStreams`` in
Hudi 1.1's ``HoodieAirliftGzipCompressor``, and HBase's ``ReusableStreamGzipCodec`` header in
Hudi 1.0) and the usual CRC-32 and size trailer. The deflate level is zlib's default, 6
(``Deflater.DEFAULT_COMPRESSION``); every block of the fixture tables, of both writers,
recompresses to the same bytes at level 6 and only there for some of them. Python's ``gzip``
module writes an mtime and OS byte 255, so the framing is built here.
"""

from __future__ import annotations

import struct
import zlib

from maintainer.hudi.hfile.binary import corrupt

GZIP_HEADER = bytes.fromhex("1f8b0800000000000000")
GZIP_LEVEL = 6
_TRAILER = struct.Struct("<II")
_GZIP_WBITS = 16 + zlib.MAX_WBITS


def gzip_compress(raw: bytes) -> bytes:
    """``raw`` as one gzip member, as Java's ``GZIPOutputStream`` writes it at the default level."""
    deflater = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflater.compress(raw) + deflater.flush()
    return GZIP_HEADER + body + _TRAILER.pack(zlib.crc32(raw), len(raw) & 0xFFFFFFFF)


def gzip_decompress(data: bytes, expected_size: int, where: str) -> bytes:
    """The content of the gzip member ``data``, which must be exactly ``expected_size`` bytes."""
    inflater = zlib.decompressobj(_GZIP_WBITS)
    try:
        raw = inflater.decompress(data)
    except zlib.error as exc:
        raise corrupt(where, f"its gzip data cannot be decompressed ({exc})") from exc
    if not inflater.eof:
        raise corrupt(where, "its gzip data ends before the end of the compressed stream")
    if inflater.unused_data:
        raise corrupt(where, f"{len(inflater.unused_data)} bytes follow its gzip data")
    if len(raw) != expected_size:
        raise corrupt(where, f"it decompresses to {len(raw)} bytes, its header says {expected_size}")
    return raw
