"""The two savepoint services as the catalog knows them (both turned on by the ``savepoints``
block, whose review rules ``savepoint_create`` declares): their action kinds and their parts of
apply's closing line."""

from __future__ import annotations

from maintainer.artifact.model import CreateSavepoint, DeleteSavepoint, SavepointEffect
from maintainer.catalog import ActionLabel, ChangeKind, ServiceDeclaration, SummaryPart
from maintainer.services.common.change_rules import always, fewer_items, less_is_destructive
from maintainer.services.common.summary_parts import counted
from maintainer.services.savepoint.effects import SavepointCreateApplyEffects, SavepointDeleteApplyEffects
from maintainer.services.savepoint.settings import SavepointsSpec, savepoints_rules

CREATE = ServiceDeclaration(
    "savepoint_create",
    "savepoints",
    (ActionLabel("create_savepoint", "savepoint to create", "savepoints to create", 10),),
    change_rules={
        "enabled": always(ChangeKind.DESTRUCTIVE, "savepoints managed otherwise"),
        "instants": fewer_items("savepointed instants"),
        "rolling.keep": less_is_destructive("rolling savepoints kept"),
        "rolling.every": always(ChangeKind.METADATA, "rolling savepoint cadence"),
    },
    summary=(SummaryPart(7, counted("savepoints_created", len, "savepoint", "created")),),
    settings=SavepointsSpec,
    table_rules=savepoints_rules,
    records=(CreateSavepoint,),
    effect=SavepointEffect,
    apply_effects=SavepointCreateApplyEffects,
)
DELETE = ServiceDeclaration(
    "savepoint_delete",
    "savepoints",
    (ActionLabel("delete_savepoint", "savepoint to delete", "savepoints to delete", 11),),
    summary=(SummaryPart(8, counted("savepoints_deleted", len, "savepoint", "deleted")),),
    records=(DeleteSavepoint,),
    effect=SavepointEffect,
    apply_effects=SavepointDeleteApplyEffects,
)
