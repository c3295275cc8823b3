"""The declarative layer: project file, profiles and manifests -> validated, typed TableSpecs.

``load_project(dir, target=..., cli_vars=...)`` is the entry point; see ``loader``.
"""

from maintainer.project.loader import PROJECT_FILE, Project, load_project
from maintainer.project.models import ProjectConfig, TableEntry, TableSpec
from maintainer.project.profiles import SparkSettings, Target, TargetSettings
from maintainer.project.services import (
    ArchiveSpec,
    CleanSpec,
    CompactionSpec,
    CompactionStrategy,
    CompactionTrigger,
    RollbackSpec,
    RollingSavepoints,
    SavepointsSpec,
)

__all__ = [
    "PROJECT_FILE",
    "ArchiveSpec",
    "CleanSpec",
    "CompactionSpec",
    "CompactionStrategy",
    "CompactionTrigger",
    "Project",
    "ProjectConfig",
    "RollbackSpec",
    "RollingSavepoints",
    "SavepointsSpec",
    "SparkSettings",
    "TableEntry",
    "TableSpec",
    "Target",
    "TargetSettings",
    "load_project",
]
