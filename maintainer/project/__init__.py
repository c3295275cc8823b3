"""The declarative layer: project file, profiles and manifests -> validated, typed TableSpecs.

``load_project(dir, target=..., cli_vars=...)`` is the entry point; see ``loader``. The service
blocks' settings models are each service's own (``services/<name>/settings.py``).
"""

from maintainer.project.loader import PROJECT_FILE, Project, load_project
from maintainer.project.models import ProjectConfig, TableEntry, TableSpec
from maintainer.project.profiles import SparkSettings, Target, TargetSettings

__all__ = [
    "PROJECT_FILE",
    "Project",
    "ProjectConfig",
    "SparkSettings",
    "TableEntry",
    "TableSpec",
    "Target",
    "TargetSettings",
    "load_project",
]
