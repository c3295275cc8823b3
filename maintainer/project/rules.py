"""The services' rules across options (Hudi's cross-field rules, HUDI.md §5), checked on a
resolved table through the installed catalog (``ServiceDeclaration.table_rules``; each service
writes its own in ``services/<name>/settings.py``).

Each breach blames the most specific value that takes part in it that a manifest or defaults
file set, so the message points at the line a user most likely has to change.
"""

from __future__ import annotations

from maintainer.catalog import RuleBreach, installed
from maintainer.errors import ManifestError
from maintainer.project.inheritance import Provenance
from maintainer.project.models import TableSpec


def check_table_rules(spec: TableSpec, provenance: Provenance) -> list[ManifestError]:
    """The breaches of every installed service's rules by ``spec``, as manifest errors."""
    return [
        _manifest_error(spec, provenance, breach)
        for rules in installed().table_rules
        for breach in rules(spec)
    ]


def _manifest_error(spec: TableSpec, provenance: Provenance, breach: RuleBreach) -> ManifestError:
    blamed = next((path for path in breach.blame if provenance.is_set(path)), breach.blame[-1])
    return ManifestError(
        f"table '{spec.name}': {breach.message}", where=str(provenance.mark(blamed)), hint=breach.hint
    )
