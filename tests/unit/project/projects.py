"""Write small projects for tests: a valid base project, with files added or replaced."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

BASE_FILES: dict[str, str] = {
    "maintainer_project.yml": """\
        name: demo
        version: 1
        profile: demo
        vars:
          root: /lake
        defaults:
          clean: {}
        """,
    "profiles.yml": """\
        demo:
          target: dev
          outputs:
            dev:
              spark: {master: "local[1]"}
        """,
    "tables/a.yml": """\
        version: 1
        tables:
          - name: a
            path: /lake/a
        """,
}


def write_project(root: Path, files: Mapping[str, str | None] | None = None) -> Path:
    """The base project with ``files`` replacing (or, when None, removing) some of its files."""
    merged: dict[str, str | None] = {**BASE_FILES, **(files or {})}
    for name, text in merged.items():
        if text is None:
            continue
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root
