"""ARCHITECTURE.md is the map of the code: its floor list is the import contract's layers
(``[tool.importlinter]`` in pyproject.toml), every module it names exists, and nothing in the
repository points at a design document outside it."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "ARCHITECTURE.md"


def _floors() -> list[set[str]]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("<!-- floors:", 1)[1].split("```mermaid", 1)[0]
    floors: list[set[str]] = []
    for item in re.split(r"\n(?=\d+\. )", section.split("-->", 1)[1].strip()):
        head = item.split(":", 1)[0] if item.count("`") else item
        floors.append(set(re.findall(r"`(maintainer[\w.]*)`", head)))
    return floors


def _contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    return [{part.strip() for part in layer.split("|")} for layer in layers]


def test_the_floor_list_is_the_import_contracts_layers() -> None:
    assert _floors() == _contract_layers()


def test_every_module_the_map_names_exists() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    for path in sorted(set(re.findall(r"`((?:[a-z_]+/)+[a-z_]*\.py)`", text))):
        candidates = [ROOT / path, ROOT / "maintainer" / path]
        assert any(p.exists() for p in candidates), path


def test_no_reference_to_a_design_document_outside_the_repository() -> None:
    sources = [*ROOT.glob("maintainer/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/**/*")]
    sources += [ROOT / "pyproject.toml", ROOT / "README.md"]
    marker = "DESIGN" + ".md"
    offenders = [
        str(p.relative_to(ROOT)) for p in sources if p.is_file() and marker in p.read_text(errors="ignore")
    ]
    assert offenders == []
