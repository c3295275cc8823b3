"""Compact columns for directory listings: a table of millions of files is listed once per
plan and its listing is held while the plan is made, so each entry should cost its name's
characters and a few bytes, not a Python object per field.

* :class:`Names`: the names as one string, NUL-separated (no file name holds a NUL: POSIX
  forbids it, S3 listings are XML, which cannot carry it), about 70 bytes per name instead of
  about 120 as separate strings; iterating splits it (fast, in C). Reading one name by index
  splits it too: iterate instead.
* :class:`OptionalInts`: sizes or modification times as 64-bit integers (8 bytes each instead
  of a pointer and an int object), None kept as a sentinel no real value takes.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import pyarrow as pa
import pyarrow.compute as pc

SEPARATOR = "\0"
_NONE = -(2**63)
"""Stands for None in :class:`OptionalInts` (no size or time in nanoseconds is this)."""


class Names(Sequence[str]):
    """Names held as one NUL-separated string (see the module)."""

    __slots__ = ("_count", "_joined", "_plain")

    def __init__(self, names: Iterable[str]) -> None:
        listed = names if isinstance(names, list) else list(names)
        joined = SEPARATOR.join(listed)
        self._count = len(listed)
        clean = joined.count(SEPARATOR) == max(0, len(listed) - 1)
        self._joined = joined if clean else ""
        self._plain: list[str] | None = None if clean else listed  # a name with a NUL: kept as is

    def joined(self) -> str | None:
        """The names NUL-separated, as held (None where a name holds a NUL: kept as a list)."""
        return None if self._plain is not None else self._joined

    def as_list(self) -> list[str]:
        if self._plain is not None:
            return list(self._plain)
        return self._joined.split(SEPARATOR) if self._count else []

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_list())

    def indexes_starting_with(self, prefix: str) -> list[int]:
        """The indexes of the names that start with ``prefix``, found in the joined string (a
        few ``find`` calls, not a split: a partition's marker file among its data files)."""
        if self._plain is not None or not prefix or SEPARATOR in prefix:
            return [index for index, name in enumerate(self.as_list()) if name.startswith(prefix)]
        framed, marker = SEPARATOR + self._joined, SEPARATOR + prefix
        found: list[int] = []
        index, counted_to = 0, 0
        at = framed.find(marker)
        while at != -1:  # the separator before name i is the (i+1)-th
            index += framed.count(SEPARATOR, counted_to, at)
            counted_to = at
            found.append(index)
            at = framed.find(marker, at + 1)
        return found

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self.as_list()[index]

    def __contains__(self, name: object) -> bool:
        return name in self.as_list()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and self.as_list() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Names({self.as_list()!r})"

    def __reduce__(self) -> tuple[type[Names], tuple[list[str]]]:
        return (Names, (self.as_list(),))


class OptionalInts(Sequence["int | None"]):
    """64-bit integers, None allowed (see the module)."""

    __slots__ = ("_has_none", "_values")

    def __init__(self, values: Iterable[int | None]) -> None:
        listed = values if isinstance(values, list) else list(values)
        try:
            self._values, self._has_none = array("q", listed), False
        except TypeError:  # a None (a directory's size): the sentinel stands for it
            self._values = array("q", [_NONE if value is None else value for value in listed])
            self._has_none = True

    def as_arrow(self) -> pa.Int64Array:
        """The values as an Arrow array (nulls for None), sharing this one's memory when it has
        no None."""
        values = pa.Array.from_buffers(pa.int64(), len(self._values), [None, pa.py_buffer(self._values)])
        if not self._has_none:
            return values
        return pc.if_else(pc.equal(values, _NONE), pa.scalar(None, pa.int64()), values)

    def __iter__(self) -> Iterator[int | None]:
        if not self._has_none:  # files only: the array's own iterator
            return iter(self._values)
        none = _NONE
        return (None if value == none else value for value in self._values)

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> int | None: ...
    @overload
    def __getitem__(self, index: slice) -> list[int | None]: ...
    def __getitem__(self, index: int | slice) -> int | list[int | None] | None:
        if isinstance(index, slice):
            return list(self)[index]
        value = self._values[index]
        return None if value == _NONE else value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"OptionalInts({list(self)!r})"

    def __reduce__(self) -> tuple[type[OptionalInts], tuple[list[int | None]]]:
        return (OptionalInts, (list(self),))
