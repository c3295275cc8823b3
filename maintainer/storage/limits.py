"""Limits on everything read from a table or a plan directory: bounded bytes, bounded JSON.

A table's files and a saved plan are input an attacker (or a broken writer) may have shaped: a
600 MB ``hoodie.properties``, a commit nested 100,000 levels deep, a 100,000-digit number. Each
is refused with an error naming the file before it costs more than the cap in memory:

* :func:`read_capped` / :func:`read_local_capped` read a file whole only when it is at most the
  cap: the size is asked first (stat, the open handle, the object's length), and never more
  than ``cap + 1`` bytes are read (a file that grows meanwhile is caught too).
* :func:`loads_bounded` parses JSON only after a linear scan (C loops over the bytes, no
  recursion) found it nested at most :data:`MAX_JSON_DEPTH` deep, with no number literal longer
  than :data:`MAX_NUMBER_CHARS` characters; ``NaN``/``Infinity`` are refused unless the format
  allows them (Jackson writes them in Hudi's commit JSON; plan.json forbids them).

The caps are generous: real tables and plans stay far below each (see each constant); a file
over its cap is not one a writer of the format made.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any, Protocol

from maintainer.errors import MaintainerError

KiB, MiB, GiB = 1024, 1024**2, 1024**3

MAX_INSTANT_FILE_BYTES = 1 * GiB
"""An instant file (commit metadata, plans of table services). The largest real commits, of
tables with hundreds of thousands of files, are a few hundred MB; Hudi reads a whole instant
file into one Java array, so it cannot read one over 2 GiB either."""
MAX_PROPERTIES_BYTES = 16 * MiB
"""``hoodie.properties`` (and its backup): a few KB, the create schema of a table with
thousands of columns included (under 1 MB)."""
MAX_LOCK_BYTES = 64 * KiB
"""The table's lock object: Hudi's ``StorageLockData``, about 100 bytes (an owner id, a time)."""
MAX_RECORD_BYTES = 1 * MiB
"""A ledger record of an applied node (``.hoodie/.maintainer/applied/``): a few hundred bytes."""
MAX_PLAN_BYTES = 1 * GiB
"""``plan.json``: about 300 bytes per action, so a plan of 500,000 actions is about 150 MB."""
MAX_PAYLOAD_BYTES = 1 * GiB
"""A Hudi payload of a saved plan (a clean plan listing every file it deletes): as an instant file."""

MAX_JSON_DEPTH = 128
"""Nesting of any JSON read (objects and arrays). Hudi's commit JSON nests 5 deep, plan.json
about 8; Python's decoder recurses once per level and fails near 1,000."""
MAX_NUMBER_CHARS = 256
"""Characters of one number literal. A 64-bit integer has at most 20, a double as Java or
Python writes it at most 25; Python refuses integers over 4,300 digits (``ValueError``)."""

READ_CHUNK = 16 * MiB
"""What one read asks for where the size is not known (a buffer that large is allocated)."""

_ESCAPE = re.compile(rb"\\.", re.DOTALL)
"""A backslash and the character it escapes: removed first, every quote left delimits a string."""
_BRACKETS_AND_QUOTES = bytes(c for c in range(256) if c not in b'"[]{}')
"""What :meth:`bytes.translate` deletes to keep only brackets and quotes."""
_NUMBER_MASK = bytes(ord("0") if c in b"+-.0123456789eE" else ord(" ") for c in range(256))
"""Number characters as ``0``, the rest as a space (runs of ``0`` are number literals)."""
_RUN = re.compile(rb"0+")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class SizedStorage(Protocol):
    """What :func:`read_capped` needs of :class:`maintainer.storage.Storage`."""

    def read_bytes_within(self, path: str, limit: int) -> bytes | None: ...

    def uri(self, path: str) -> str: ...


ErrorType = type[MaintainerError]


def _too_large(
    where: str, cap: int, what: str, error: ErrorType, hint: str | None, size: int | None = None
) -> MaintainerError:
    found = f"is {size:,} bytes, more than" if size is not None else "is more than"
    return error(
        f"{what} {found} the {cap:,} bytes maintainer reads of such a file",
        where=where,
        hint=hint
        or f"no writer of a {what} makes one this large: check who wrote it, and restore it from a backup",
    )


def read_at_most(read: Callable[[int], bytes], limit: int, size: int | None = None) -> bytes | None:
    """What ``read(n)`` gives until it gives nothing, or None as soon as that is more than
    ``limit`` bytes: never more than ``limit + 1`` are asked for. ``size`` (when known) is asked
    for at once; otherwise, or if the file grew, :data:`READ_CHUNK` at a time."""
    chunks: list[bytes] = []
    total = 0
    want = READ_CHUNK if size is None else size + 1
    while total <= limit:
        chunk = read(min(want, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = READ_CHUNK
    if total > limit:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_capped(
    storage: SizedStorage, path: str, cap: int, *, what: str, error: ErrorType, hint: str | None = None
) -> bytes:
    """The whole file at ``path``, at most ``cap`` bytes; ``error`` naming it when larger."""
    data = storage.read_bytes_within(path, cap)
    if data is None:
        raise _too_large(storage.uri(path), cap, what, error, hint)
    return data


def read_local_capped(path: Path, cap: int, *, what: str, error: ErrorType, hint: str | None = None) -> bytes:
    """The whole local file, at most ``cap`` bytes; ``error`` naming it when larger. OSError
    (FileNotFoundError among them) is left to the caller."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            raise _too_large(str(path), cap, what, error, hint, size)
        data = read_at_most(handle.read, cap, size)
    if data is None:
        raise _too_large(str(path), cap, what, error, hint)
    return data


def json_shape_problem(
    data: bytes, max_depth: int = MAX_JSON_DEPTH, max_number_chars: int = MAX_NUMBER_CHARS
) -> str | None:
    """What makes ``data`` too deep or its numbers too long to parse, or None. Linear, in C
    loops (``bytes.translate``, ``split``, ``find``: a 55 MB commit takes 0.2 to 0.4 s, less
    than ``json.loads`` of it): escapes are removed, so that every quote left opens or closes a string;
    the brackets between strings are counted. Exact for valid JSON; for invalid JSON it counts
    at least the nesting the decoder reaches before it fails."""
    unescaped = _ESCAPE.sub(b"", data)
    long_number = _long_number(unescaped, max_number_chars)
    if long_number is not None:
        return f"a number literal of {long_number:,} characters (at most {max_number_chars} are read)"
    brackets = b"".join(unescaped.translate(None, _BRACKETS_AND_QUOTES).split(b'"')[0::2])
    depth = max(accumulate(map(_STEP.__getitem__, brackets)), default=0)
    if depth > max_depth:
        return f"objects and arrays nested {depth:,} deep (at most {max_depth} are read)"
    return None


def _long_number(unescaped: bytes, max_number_chars: int) -> int | None:
    """The length of the first run of number characters outside strings longer than
    ``max_number_chars``, or None. Strings are removed only where a long run exists at all."""
    too_long = b"0" * (max_number_chars + 1)
    if unescaped.translate(_NUMBER_MASK).find(too_long) < 0:
        return None
    outside = b'""'.join(unescaped.split(b'"')[0::2]).translate(_NUMBER_MASK)
    start = outside.find(too_long)
    if start < 0:
        return None
    run = _RUN.match(outside, start)
    return None if run is None else run.end() - start


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads_bounded(
    data: bytes,
    *,
    what: str,
    where: str,
    error: ErrorType,
    hint: str,
    allow_constants: bool = False,
    max_depth: int = MAX_JSON_DEPTH,
    max_number_chars: int = MAX_NUMBER_CHARS,
) -> Any:
    """The JSON value in ``data`` (UTF-8), checked first by :func:`json_shape_problem`; every
    problem (too deep, a number too long, invalid JSON or UTF-8, ``NaN`` or ``Infinity`` unless
    ``allow_constants``) is ``error`` naming ``where`` and saying what is wrong with ``what``
    (the file, e.g. ``plan.json``)."""
    problem = json_shape_problem(data, max_depth, max_number_chars)
    if problem is not None:
        raise error(f"{what} is not read as JSON: {problem}", where=where, hint=hint)
    try:
        text = data.decode("utf-8")
        if allow_constants:
            return json.loads(text)
        return json.loads(text, parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: JSONDecodeError too
        raise error(f"{what} is not valid JSON: {exc}", where=where, hint=hint) from exc
