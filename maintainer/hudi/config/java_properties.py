"""The Java ``.properties`` format, as ``java.util.Properties`` reads (``load``) and writes
(``store``) it: what ``hoodie.properties`` is written in."""

from __future__ import annotations

import re
from collections.abc import Mapping

from maintainer.errors import CorruptFileError

PROPERTIES_FILE = ".hoodie/hoodie.properties"


class _MalformedEscapeError(Exception):
    """A ``\\uxxxx`` escape without four hex digits (Java's IllegalArgumentException)."""


def _unescape(text: str) -> str:
    """Undo Java properties escapes (``\\:``, ``\\=``, ``\\uXXXX``, ``\\t``…)."""
    out: list[str] = []
    i = 0
    simple = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
    while i < len(text):
        char = text[i]
        if char != "\\" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise _MalformedEscapeError(f"malformed \\uxxxx encoding: {text[i : i + 6]!r}")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(simple.get(nxt, nxt))
        i += 2
    return "".join(out)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JAVA_WHITESPACE = " \t\f"


def _logical_lines(text: str) -> list[str]:
    """Natural lines joined at odd trailing backslashes; comments and blank lines dropped.

    As in Java, only ``\\n``, ``\\r`` and ``\\r\\n`` end a line, leading whitespace is
    skipped and trailing whitespace belongs to the value.
    """
    lines: list[str] = []
    pending = ""
    for raw in _LINE_BREAK.split(text):
        line = raw.lstrip(_JAVA_WHITESPACE)
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _split_key_value(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] in "=:" or line[i] in _JAVA_WHITESPACE:
            break
        i += 1
    key, rest = line[:i], line[i:].lstrip(_JAVA_WHITESPACE)
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(_JAVA_WHITESPACE)
    return _unescape(key), _unescape(rest)


def parse_java_properties(text: str, where: str = PROPERTIES_FILE) -> dict[str, str]:
    """Parse the Java ``Properties.load`` format into a dict (CorruptFileError on a malformed
    ``\\uXXXX`` escape, where Java throws IllegalArgumentException)."""
    try:
        return dict(_split_key_value(line) for line in _logical_lines(text))
    except _MalformedEscapeError as exc:
        raise CorruptFileError(f"hoodie.properties cannot be parsed: {exc}", where=where) from exc


def _escape(text: str, is_key: bool) -> str:
    out: list[str] = []
    for index, char in enumerate(text):
        if char in "\\=:#!":
            out.append("\\" + char)
        elif char == " " and (is_key or index == 0):
            out.append("\\ ")
        elif char in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[char])
        elif ord(char) < 0x20 or ord(char) > 0x7E:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)


def format_java_properties(values: Mapping[str, str], header_comments: tuple[str, ...] = ()) -> str:
    """Write properties the way ``java.util.Properties.store`` does (comments first)."""
    lines = [f"#{comment}" for comment in header_comments]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"
