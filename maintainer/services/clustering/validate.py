"""The up-front check of an approved clustering node (before any node of the plan runs): every
group names one partition, real file ids, base instants and file names, at least one slice,
no file group twice, and a positive number of output file groups."""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.artifact.model import ClusterGroup, ClusteringEffect, ExecutePendingClustering, NodePlan
from maintainer.services.base import Check
from maintainer.services.common.checks import (
    action_label,
    base_name_problem,
    effect_check,
    instant_check,
    instant_problem,
    log_name_problem,
    other_action_check,
    partition_problem,
)


def _file_id_problem(file_id: str) -> str | None:
    if not file_id or "/" in file_id or file_id.startswith("."):
        return "not a file id"
    return None


def _group_checks(group: ClusterGroup, seen: set[tuple[str, str]]) -> Iterator[Check]:
    label = action_label(group)
    yield label, group.partition, partition_problem(group.partition)
    yield label, len(group.slices), None if group.slices else "a clustering group has no file slice"
    outputs = group.num_output_file_groups
    yield label, outputs, None if outputs >= 1 else "a clustering group writes at least one file group"
    for piece in group.slices:
        yield label, piece.file_id, _file_id_problem(piece.file_id)
        key = (group.partition, piece.file_id)
        yield label, piece.file_id, "file group in two clustering groups" if key in seen else None
        seen.add(key)
        yield label, piece.base_instant, instant_problem(piece.base_instant)
        if piece.base_file is not None:
            yield label, piece.base_file.name, base_name_problem(piece.base_file.name)
        for log in piece.log_files:
            yield label, log.name, log_name_problem(log.name)


def validate_clustering(node: NodePlan, table_uri: str) -> Iterator[Check]:
    seen: set[tuple[str, str]] = set()
    for action in node.actions:
        match action:
            case ExecutePendingClustering():
                yield instant_check(action)
            case ClusterGroup():
                yield from _group_checks(action, seen)
            case _:
                yield other_action_check(action, node.service)
    yield from effect_check(node, ClusteringEffect)
