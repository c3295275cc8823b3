"""``profiles.yml``: where and how to run (Spark master or Spark Connect remote, threads, storage)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from maintainer.errors import ManifestError
from maintainer.project.issues import did_you_mean, validation_error
from maintainer.project.models import check_state_location
from maintainer.project.settings_types import FrozenModel
from maintainer.project.templating import Renderer
from maintainer.project.yamlsrc import YamlDocument, load_yaml_file

PROFILES_FILE = "profiles.yml"
PROFILES_DIR_ENV = "MAINTAINER_PROFILES_DIR"
ConfValue = str | int | float | bool


class SparkSettings(FrozenModel):
    """How to get a SparkSession: a ``master`` (default ``local[*]``) or a Spark Connect ``remote``."""

    master: str | None = None
    remote: str | None = None
    """Spark Connect URL, e.g. sc://spark-connect.example:15002 (instead of master)."""
    app_name: str = "maintainer"
    conf: dict[str, ConfValue] = Field(default_factory=dict)
    """Spark configuration (spark.executor.memory, ...)."""

    @model_validator(mode="after")
    def _one_way_to_connect(self) -> SparkSettings:
        if self.master and self.remote:
            raise ValueError("give either spark.master or spark.remote, not both")
        return self

    @field_validator("conf")
    @classmethod
    def _as_text(cls, conf: dict[str, ConfValue]) -> dict[str, ConfValue]:
        return {
            key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in conf.items()
        }

    @property
    def effective_master(self) -> str | None:
        return None if self.remote else self.master or "local[*]"


class TargetSettings(FrozenModel):
    """One target (output) of a profile."""

    spark: SparkSettings = SparkSettings()
    threads: Annotated[int, Field(ge=1, le=256)] = 4
    """Tables maintained in parallel."""
    storage_options: dict[str, ConfValue] = Field(default_factory=dict)
    """Options of the file system (pyarrow.fs), e.g. region, endpoint_override for s3."""
    engine: Literal["auto", "local", "spark"] = "auto"
    """Where apply runs a node's tasks: ``auto`` in the driver process when its work is small
    (savepoints, archival, metadata-table operations, cleans and rollbacks of a few files,
    drift-only nodes) and on Spark otherwise (compactions); ``local`` never starts Spark;
    ``spark`` always does."""
    state: str | None = None
    """Where apply keeps the last applied state for this target (overrides the project's
    ``state``): a folder or an object-store prefix (s3://bucket/prefix, gs://...). Empty: the
    project's."""

    _state_location = field_validator("state")(check_state_location)


class ProfileSettings(FrozenModel):
    target: Annotated[str, Field(min_length=1)]
    """The default target."""
    outputs: dict[str, TargetSettings]


@dataclass(frozen=True, slots=True)
class Target:
    """The chosen target of the chosen profile."""

    profile: str
    name: str
    settings: TargetSettings
    profiles_file: str

    def jinja_context(self) -> dict[str, Any]:
        spark = self.settings.spark
        return {
            "name": self.name,
            "profile": self.profile,
            "threads": self.settings.threads,
            "spark": {"master": spark.effective_master, "remote": spark.remote, "conf": dict(spark.conf)},
        }


def find_profiles_file(project_dir: Path, profiles_dir: Path | None = None) -> Path | None:
    """``profiles_dir/profiles.yml`` when a folder is given (``--profiles-dir``), else the first of
    $MAINTAINER_PROFILES_DIR, the project folder and ~/.maintainer that has one."""
    if profiles_dir is not None:
        path = Path(profiles_dir) / PROFILES_FILE
        return path if path.is_file() else None
    candidates = [project_dir / PROFILES_FILE]
    if os.environ.get(PROFILES_DIR_ENV):
        candidates.insert(0, Path(os.environ[PROFILES_DIR_ENV]) / PROFILES_FILE)
    candidates.append(Path.home() / ".maintainer" / PROFILES_FILE)
    return next((path for path in candidates if path.is_file()), None)


def load_target(
    project_dir: Path,
    profile: str,
    target: str | None,
    renderer: Renderer,
    profile_mark: str,
    profiles_dir: Path | None = None,
) -> Target:
    """Read profiles.yml (from ``profiles_dir`` when given) and return the named (or default)
    target of ``profile``."""
    path = find_profiles_file(project_dir, profiles_dir)
    if path is None and profiles_dir is not None:
        raise ManifestError(
            f"no {PROFILES_FILE} in {profiles_dir} (--profiles-dir)",
            where=str(Path(profiles_dir) / PROFILES_FILE),
            hint=f"create it there, or drop --profiles-dir to read {project_dir / PROFILES_FILE}",
        )
    if path is None:
        raise ManifestError(
            f"no {PROFILES_FILE} found for profile '{profile}'",
            where=profile_mark,
            hint=f"create {project_dir / PROFILES_FILE} (maintainer init writes one), "
            f"or put it in ~/.maintainer/ or ${PROFILES_DIR_ENV}",
        )
    display = _display_name(path, project_dir)
    document = load_yaml_file(path, display)
    if not isinstance(document.data, dict):
        raise ManifestError(
            "profiles.yml must be a mapping of profile names",
            where=display,
            hint=f"start with '{profile}:' and give 'target' and 'outputs'",
        )
    if profile not in document.data:
        raise ManifestError(
            f"profile '{profile}' is not in {display}",
            where=profile_mark,
            hint=did_you_mean(profile, document.data, "profiles"),
        )
    rendered = renderer.for_profiles().render_tree(document, document.data[profile], (profile,))
    settings = _validate_profile(document, rendered, profile)
    chosen = target or settings.target
    if chosen not in settings.outputs:
        source = "--target" if target else str(document.mark((profile, "target")))
        raise ManifestError(
            f"target '{chosen}' is not an output of profile '{profile}'",
            where=str(document.key_mark((profile, "outputs"))) if target else source,
            hint=did_you_mean(chosen, settings.outputs, "targets"),
        )
    return Target(profile, chosen, settings.outputs[chosen], display)


def _validate_profile(document: YamlDocument, data: Any, profile: str) -> ProfileSettings:
    from pydantic import ValidationError

    try:
        return ProfileSettings.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, document, (profile,), f"profile '{profile}'", ProfileSettings) from None


def _display_name(path: Path, project_dir: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_dir.resolve()))
    except ValueError:
        return str(path)
