"""The savepoint nodes' records (``savepoint_create`` and ``savepoint_delete``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateSavepoint(PlanRecord):
    kind: Literal["create_savepoint"] = "create_savepoint"
    target: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteSavepoint(PlanRecord):
    kind: Literal["delete_savepoint"] = "delete_savepoint"
    target: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SavepointEffect(PlanRecord):
    kind: Literal["savepoint"] = "savepoint"
    savepoints: tuple[str, ...]
