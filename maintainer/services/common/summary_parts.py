"""The vocabulary of apply's closing line (``ServiceDeclaration.summary``): parts told from
the effects every node of a run reported (``run_results.json``), e.g. ``12 file slices
compacted`` or ``8 files deleted (12.0 KiB)``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from maintainer.catalog import NodeEffects
from maintainer.units import count, human_bytes


def total(nodes: Sequence[NodeEffects], key: str, size: Callable[[Any], int] = int) -> int:
    """``key`` summed over the nodes that reported it (``size``: a value's measure)."""
    return sum(size(node.effects[key]) for node in nodes if node.effects.get(key))


def counted(
    key: str, measure: Callable[[Any], int], noun: str, verb: str
) -> Callable[[Sequence[NodeEffects]], str | None]:
    """``<n> <noun>s <verb>`` of every node's ``key`` (``measure``: int of a number, len of a
    list), None when none."""

    def tell(nodes: Sequence[NodeEffects]) -> str | None:
        n = total(nodes, key, measure)
        return f"{count(n, noun)} {verb}".rstrip() if n else None

    return tell


def of_service(nodes: Sequence[NodeEffects], service: str) -> list[NodeEffects]:
    return [node for node in nodes if node.service == service]


def files_deleted(nodes: Sequence[NodeEffects], size_format: str = "{files} deleted ({size})") -> str | None:
    """``8 files deleted (12.0 KiB)`` of the nodes' ``files_deleted`` and ``bytes_deleted``,
    or None when none were."""
    files, size = total(nodes, "files_deleted"), total(nodes, "bytes_deleted")
    if not files:
        return None
    told = count(files, "file")
    return size_format.format(files=told, size=human_bytes(size)) if size else f"{told} deleted"
