"""The output options every command takes, before or after its name (``maintainer --quiet plan``
or ``maintainer plan --quiet``), as dbt's: ``--quiet``, ``--no-color``, ``--log-format``."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource

from maintainer.console import LOG_FORMATS, configure

_META_KEY = "maintainer.output"
_DEFAULTS = {"quiet": False, "no_color": False, "log_format": "text"}


def _apply(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    root = ctx.find_root()
    chosen: dict[str, Any] = root.meta.setdefault(_META_KEY, dict(_DEFAULTS))
    name = str(param.name)
    given = ctx.get_parameter_source(name) is not ParameterSource.DEFAULT and value != _DEFAULTS[name]
    if ctx is root or given:  # the group sets every option; a command only what it was given
        chosen[name] = value
    configure(quiet=chosen["quiet"], log_format=chosen["log_format"], color=not chosen["no_color"])
    return value


def output_options() -> list[click.Option]:
    return [
        click.Option(
            ["--quiet", "-q"],
            is_flag=True,
            expose_value=False,
            callback=_apply,
            envvar="MAINTAINER_QUIET",
            help="Print only errors, warnings and the closing line.",
        ),
        click.Option(
            ["--no-color"],
            is_flag=True,
            expose_value=False,
            callback=_apply,
            envvar="NO_COLOR",
            help="No colours or styles (also when $NO_COLOR is set).",
        ),
        click.Option(
            ["--log-format"],
            type=click.Choice(LOG_FORMATS),
            default="text",
            expose_value=False,
            callback=_apply,
            envvar="MAINTAINER_LOG_FORMAT",
            help="json: one JSON object per line on stdout (ts, level, msg, event fields), for log "
            "collectors.",
        ),
    ]


def add_output_options(command: click.Command) -> None:
    names = {name for param in command.params for name in getattr(param, "opts", ())}
    command.params.extend(option for option in output_options() if option.opts[0] not in names)
