"""``maintainer init [DIR]``: a new project from the template shipped with the package."""

from __future__ import annotations

import re
import shutil
from importlib import resources
from pathlib import Path

import click
from rich.markup import escape

from maintainer.console import stdout
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import ManifestError
from maintainer.project.loader import PROJECT_FILE
from maintainer.project.project_schema import write_schemas

TEMPLATE_DIR_NAME = "project_template"
TEMPLATE_LAKE_ROOT = "/tmp/maintainer-lake"
"""The template's default ``lake_root`` (``maintainer_project.yml``)."""
DEMO_LAKE = "lake"
INIT_TABLES = (
    DatagenSpec("trips", "mor", 8, WorkloadSpec(partitions=2, file_groups=2, commits=7, rows_per_commit=50),
                failed_write=True),
    DatagenSpec("trips_daily", "cow", 6, WorkloadSpec(partitions=2, file_groups=1, commits=14,
                                                      rows_per_commit=20, seed=7)),
)  # fmt: skip
"""The example manifest's tables, as ``--with-demo-tables`` writes them: small, in this process."""
PLACEHOLDER = "my_project"
NAMED_FILES = ("maintainer_project.yml", "profiles.yml", "README.md")
ESSENTIAL_FILES = (PROJECT_FILE, "profiles.yml", "tables/example.yml")


def template_dir() -> Path:
    """The project template: ``maintainer/project_template`` (a symlink to the repository's
    ``project_template/`` in a checkout, real files in an installed package)."""
    packaged = Path(str(resources.files("maintainer").joinpath(TEMPLATE_DIR_NAME)))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / TEMPLATE_DIR_NAME


def project_name_for(directory: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", directory.resolve().name) or PLACEHOLDER
    return name if re.match(r"[A-Za-z_]", name) else f"p_{name}"


@click.command("init")
@click.argument("directory", default=".", type=click.Path(file_okay=False))
@click.option(
    "--with-demo-tables",
    is_flag=True,
    help="Also write the example manifest's tables (trips: merge-on-read with a failed write, "
    f"trips_daily: copy-on-write) under DIRECTORY/{DEMO_LAKE}, small and without Spark, and point "
    "lake_root there: validate, plan and apply work at once.",
)
def command(directory: str, with_demo_tables: bool) -> int:
    """Create a project in DIRECTORY (default: here): maintainer_project.yml, profiles.yml
    with a local default target, tables/example.yml with every option, a README, JSON
    schemas for editors, and a GitHub Actions workflow (plan on pull requests, apply on merge).
    The example manifest's tables are under lake_root (maintainer_project.yml), which does not
    hold them until you point it at your lake, or until --with-demo-tables writes them.
    """
    target = Path(directory)
    if with_demo_tables:
        _refuse_existing_tables(target)  # before the project is created
    name, copied, kept = create_project(target)
    stdout.print(f"created project '{name}' in {escape(str(target))} ({len(copied)} files + schemas/)")
    for path in kept:
        stdout.print(f"kept your existing {escape(path)}")
    if with_demo_tables:
        lake = write_demo_tables(target)
        stdout.print(f"wrote the example tables ({', '.join(spec.name for spec in INIT_TABLES)}) "
                     f"under {escape(str(lake))}; lake_root points there")  # fmt: skip
        stdout.print(f"next: cd {escape(str(target))} && maintainer validate && maintainer plan")
        return 0
    stdout.print(
        f"the example manifest's tables are under lake_root ({TEMPLATE_LAKE_ROOT} unless "
        "$MAINTAINER_LAKE_ROOT is set): point it at your lake in maintainer_project.yml, or start "
        "again with --with-demo-tables to have small tables written there"
    )
    stdout.print(f"next: cd {escape(str(target))} && maintainer validate && maintainer ls")
    return 0


def _refuse_existing_tables(target: Path) -> None:
    for spec in INIT_TABLES:
        path = target / DEMO_LAKE / spec.name
        if path.exists():
            raise ManifestError(
                f"{path} already exists",
                where=str(path),
                hint="init writes new tables only: move it away or init elsewhere",
            )


def write_demo_tables(target: Path) -> Path:
    """Write ``INIT_TABLES`` under ``target/lake`` and point the project's ``lake_root`` there."""
    lake = (target / DEMO_LAKE).resolve()
    project_file = target / PROJECT_FILE
    text = project_file.read_text(encoding="utf-8")
    if TEMPLATE_LAKE_ROOT not in text:  # a project file kept from before: not ours to edit
        raise ManifestError(
            f"{project_file} does not have the template's lake_root ({TEMPLATE_LAKE_ROOT})",
            where=str(project_file),
            hint="--with-demo-tables goes with a new project; `maintainer datagen` writes other tables",
        )
    project_file.write_text(text.replace(TEMPLATE_LAKE_ROOT, str(lake)), encoding="utf-8")
    for spec in INIT_TABLES:
        generate(str(lake / spec.name), spec, keep_history=False)
    return lake


def create_project(target: Path) -> tuple[str, list[Path], list[str]]:
    """Copy the template into ``target`` and write the JSON schemas; returns the project name,
    the files created and the existing files kept."""
    template = template_dir()
    _refuse_existing(template, target)
    name = project_name_for(target)
    copied, kept = _copy_template(template, target, name)
    write_schemas(target / "schemas")
    return name, copied, kept


def _refuse_existing(template: Path, target: Path) -> None:
    """Refuse when a file the project needs is already there; other files are kept as they are."""
    if not template.is_dir():
        raise ManifestError(
            f"project template not found at {template}",
            where=str(template),
            hint="reinstall maintainer: the package data is missing",
        )
    clashes = [name for name in ESSENTIAL_FILES if (target / name).exists()]
    if clashes:
        raise ManifestError(
            f"{target} already has {', '.join(clashes)}",
            where=str(target),
            hint="init creates new projects only: choose an empty or new folder, or move these files away",
        )


def _copy_template(template: Path, target: Path, name: str) -> tuple[list[Path], list[str]]:
    """Copy the template (naming the project); existing non-essential files are kept."""
    copied, kept = [], []
    for source in sorted(template.rglob("*")):
        if not source.is_file() or "__pycache__" in source.parts:
            continue
        relative = source.relative_to(template)
        destination = target / relative
        if destination.exists():
            kept.append(relative.as_posix())
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.name in NAMED_FILES and source.parent == template:
            destination.write_text(
                source.read_text(encoding="utf-8").replace(PLACEHOLDER, name), encoding="utf-8"
            )
        else:
            shutil.copyfile(source, destination)
        copied.append(destination)
    return copied, kept
