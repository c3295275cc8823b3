"""Sandboxed Jinja for string values: ``var()``, ``env_var()`` and ``target``.

Rendering happens after YAML parsing, on string values only (never keys), so a
template cannot change the structure of a file. An undefined variable is an error,
and the sandbox refuses access to Python internals, calls outside a short allowlist,
and any work or size past ``TemplateLimits`` (see ``maintainer.project.sandbox``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jinja2

from maintainer.errors import ManifestError
from maintainer.project.issues import ManifestErrorGroup
from maintainer.project.sandbox import BoundedSandbox, TemplateLimitError, TemplateLimits, WorkBudget
from maintainer.project.yamlsrc import Path_, YamlDocument
from maintainer.secrets import PLAN_KEY_ENV, SECRET_PREFIX, is_secret_name, secrets_in

_MISSING = object()
_MARKERS = ("{{", "{%", "{#")
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


class _RenderProblem(Exception):
    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


class Renderer:
    """Renders the string values of parsed YAML with the project's vars and the chosen target."""

    def __init__(
        self,
        variables: Mapping[str, Any],
        target: Mapping[str, Any] | None = None,
        *,
        limits: TemplateLimits | None = None,
        budget: WorkBudget | None = None,
        cli_vars: Mapping[str, Any] | None = None,
        cli_uses: dict[str, set[str]] | None = None,
        secrets_allowed: bool = False,
    ) -> None:
        """``budget`` is shared by the renderers of one project load (``with_target`` keeps it), and
        so is ``cli_uses``: for each place (file:line:col), the ``cli_vars`` (--vars) its template
        read, so an error there can be blamed on --vars (:func:`blame_cli_vars`).
        ``secrets_allowed``: only profiles.yml's renderer (:meth:`for_profiles`) may read a secret
        (``MAINTAINER_SECRET_*``, the plan key) or render a value holding one."""
        self.variables = dict(variables)
        self.cli_vars = dict(cli_vars or {})
        self.cli_uses = cli_uses if cli_uses is not None else {}
        self._used: set[str] = set()
        self.budget = budget or WorkBudget(limits or TemplateLimits())
        self.limits = self.budget.limits
        self.environment = BoundedSandbox(self.budget, undefined=jinja2.StrictUndefined, autoescape=False)
        self.secrets_allowed = secrets_allowed
        self.environment.globals.update(var=self._var, env_var=self._env_var)
        if target is not None:
            self.environment.globals["target"] = dict(target)
        self._compiled: dict[str, Callable[[], str]] = {}
        self._expressions: dict[str, Callable[[], Any]] = {}

    def with_target(self, target: Mapping[str, Any]) -> Renderer:
        return Renderer(
            self.variables, target, budget=self.budget, cli_vars=self.cli_vars, cli_uses=self.cli_uses
        )

    def for_profiles(self) -> Renderer:
        """This renderer for profiles.yml: the one file that may read secrets (credentials)."""
        return Renderer(
            self.variables, budget=self.budget, cli_vars=self.cli_vars, cli_uses=self.cli_uses,
            secrets_allowed=True,
        )  # fmt: skip

    def render_tree(
        self, document: YamlDocument, data: Any, path: Path_, skip: frozenset[str] = frozenset()
    ) -> Any:
        """A copy of ``data`` (found at ``path`` in ``document``) with every string value rendered."""
        if isinstance(data, dict):
            return {
                key: value if key in skip else self.render_tree(document, value, (*path, key))
                for key, value in data.items()
            }
        if isinstance(data, list):
            return [self.render_tree(document, item, (*path, index)) for index, item in enumerate(data)]
        if isinstance(data, str) and any(marker in data for marker in _MARKERS):
            return self.render_string(data, str(document.mark(path)))
        return data

    def render_string(self, source: str, where: str) -> str:
        self._used = set()
        try:
            self.budget.start()
            render = self._compiled.get(source)
            if render is None:
                render = self._compile(source)
                self._compiled[source] = render
            return self._no_secret(render())
        except (_RenderProblem, TemplateLimitError) as exc:
            raise ManifestError(str(exc), where=where, hint=exc.hint) from None
        except RecursionError:
            raise ManifestError(
                "template recursion too deep", where=where, hint="remove the recursive macro or loop"
            ) from None
        except jinja2.exceptions.SecurityError as exc:
            raise ManifestError(
                f"template refused by the sandbox: {exc}",
                where=where,
                hint="templates may only use var(), env_var(), target and plain expressions",
            ) from None
        except jinja2.exceptions.UndefinedError as exc:
            raise ManifestError(
                f"undefined in template {source!r}: {exc.message}",
                where=where,
                hint="use var('name') for project vars, env_var('NAME', 'default') for the environment, "
                "or target.name",
            ) from None
        except jinja2.exceptions.TemplateSyntaxError as exc:
            raise ManifestError(
                f"invalid template {source!r}: {exc.message}",
                where=where,
                hint="check the {{ ... }} braces and quotes",
            ) from None
        except Exception as exc:  # a template may raise anything (bad arithmetic, filters on wrong types)
            raise ManifestError(
                f"template {source!r} failed: {type(exc).__name__}: {exc}",
                where=where,
                hint="simplify the expression; templates should only substitute values",
            ) from None
        finally:
            self.budget.stop()
            if self._used:
                self.cli_uses.setdefault(where, set()).update(self._used)

    def _compile(self, source: str) -> Callable[[], str]:
        """A renderer for ``source``. Plain ``{{ expression }}`` substitutions (the common case) are
        compiled per expression and shared between strings; anything else is a full template.
        Either way the rendered text is bounded by ``max_value_chars``."""
        if len(source) > self.limits.max_template_chars:
            raise TemplateLimitError(
                f"templated value of {len(source)} characters (at most {self.limits.max_template_chars})",
                "keep templated values short: substitute vars, do not write programs",
            )
        parts = _EXPRESSION.split(source)
        literal_braces = any("{{" in part for part in parts[::2])
        if "{%" not in source and "{#" not in source and not literal_braces:
            try:
                pieces = [self._expression(part) if index % 2 else part for index, part in enumerate(parts)]
            except jinja2.exceptions.TemplateSyntaxError:
                pass
            else:
                return lambda: self._bounded_join(
                    piece if isinstance(piece, str) else _text(piece()) for piece in pieces
                )
        template = self.environment.from_string(source)
        return lambda: self._bounded_join(template.generate())

    def _bounded_join(self, pieces: Iterable[str]) -> str:
        """The rendered pieces joined, refused as soon as they pass ``max_value_chars``."""
        kept: list[str] = []
        size = 0
        for piece in pieces:
            size += len(piece)
            if size > self.limits.max_value_chars:
                raise TemplateLimitError(
                    f"rendered value longer than {self.limits.max_value_chars} characters",
                    "manifest templates should only substitute values: make the output shorter",
                )
            kept.append(piece)
        return "".join(kept)

    def _expression(self, text: str) -> Callable[[], Any]:
        compiled = self._expressions.get(text)
        if compiled is None:
            compiled = self.environment.compile_expression(text, undefined_to_none=False)
            self._expressions[text] = compiled
        return compiled

    def _var(self, name: str, default: Any = _MISSING) -> Any:
        if name in self.cli_vars:
            self._used.add(name)
        if name in self.variables:
            return self.variables[name]
        if default is not _MISSING:
            return default
        raise _RenderProblem(
            f"var('{name}') is not defined",
            hint=f"define '{name}' under vars: in maintainer_project.yml, pass --vars '{{{name}: ...}}', "
            f"or give a default: var('{name}', ...)",
        )

    def _no_secret(self, rendered: str) -> str:
        """``rendered``, unless it holds the value of a secret where secrets are not allowed."""
        names = [] if self.secrets_allowed else secrets_in(rendered)
        if names:
            raise _RenderProblem(
                f"the value holds the value of the secret {', '.join(names)}: secrets may be "
                "rendered only in profiles.yml, and are masked wherever maintainer prints or writes",
                hint="use the secret in profiles.yml (e.g. in storage_options) and not in a manifest, "
                "maintainer_project.yml, a defaults file, or a var of them",
            )
        return rendered

    def _env_var(self, name: str, default: Any = _MISSING) -> Any:
        if is_secret_name(name) and not self.secrets_allowed:
            raise _RenderProblem(
                f"env_var('{name}') reads a secret ({SECRET_PREFIX}* or {PLAN_KEY_ENV}): secrets may be "
                "read only in profiles.yml, which is never written into a plan",
                hint=f"read {name} in profiles.yml (e.g. for storage credentials); a manifest value ends "
                f"up in plan.json, plan.md and the logs. Not a secret? Rename it without {SECRET_PREFIX}",
            )
        return _env_var(name, default)


def _text(value: Any) -> str:
    if isinstance(value, jinja2.Undefined):
        value._fail_with_undefined_error()
    return str(value)


def _env_var(name: str, default: Any = _MISSING) -> Any:
    value = os.environ.get(name)
    if value is not None:
        return value
    if default is not _MISSING:
        return default
    raise _RenderProblem(
        f"environment variable {name} is not set",
        hint=f"export {name}=..., or give a default: env_var('{name}', '...')",
    )


def blame_cli_vars(
    error: ManifestError, cli_uses: Mapping[str, set[str]], cli_vars: Mapping[str, Any]
) -> ManifestError:
    """``error`` said to come from --vars when it is placed where a template read a --vars value
    (a value of the wrong type or shape fails there, but the manifest is not what is wrong)."""
    if isinstance(error, ManifestErrorGroup):
        blamed = [blame_cli_vars(one, cli_uses, cli_vars) for one in error.errors]
        return (
            error
            if all(a is b for a, b in zip(blamed, error.errors, strict=True))
            else ManifestErrorGroup(blamed)
        )
    names = sorted(cli_uses.get(error.where or "", ()))
    if not names:
        return error
    given = ", ".join(f"'{name}' = {cli_vars[name]!r}" for name in names)
    hint = f"fix the value in --vars; {error.hint}" if error.hint else "fix the value in --vars"
    return ManifestError(f"{given} (used at {error.where}): {error.message}", where="--vars", hint=hint)
