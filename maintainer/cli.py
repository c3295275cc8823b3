"""The ``maintainer`` command line: a thin layer over the API.

Each command lives in ``maintainer/commands/<name>.py`` and is registered below.
This module only owns the group, the exit codes and the error rendering:
0 ok, 1 failure, 2 changes pending and 3 a node blocked (``plan --detailed-exitcode``), 64 usage error,
130 interrupted (Ctrl-C; ``apply`` handles its signals itself while its nodes run, see
``maintainer.commands.interrupts``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from maintainer import __version__
from maintainer.commands import LazyCommandGroup, register_commands
from maintainer.commands.console_log import console_logging
from maintainer.errors import MaintainerError
from maintainer.logs import fields, get_logger

log = get_logger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_CHANGES = 2
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report a process Ctrl-C ended."""

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=LazyCommandGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="maintainer")
def cli() -> None:
    """Keep Apache Hudi tables healthy, declaratively.

    Describe tables and their maintenance (rollback of failed writes, compaction,
    clean, the metadata table's own upkeep, archive, savepoints) in YAML manifests
    kept in git. `maintainer plan`
    reads the tables and writes a reviewable plan without changing anything;
    `maintainer apply PLAN` carries out exactly that plan on Spark.

    \b
    Typical flow:
      maintainer init my-project && cd my-project
      maintainer validate
      maintainer plan --out target/plan      # in CI, on the pull request
      maintainer show target/plan --format markdown
      maintainer apply target/plan           # after review
    """


register_commands(cli)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the group and map every outcome to an exit code; the library's log
    records are printed on the consoles meanwhile (:mod:`maintainer.commands.console_log`)."""
    with console_logging():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    try:
        result = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C where no handler of ours runs
            log.error("interrupted (Ctrl-C)")
            return EXIT_INTERRUPTED
        log.error("aborted")
        return EXIT_FAILURE
    except click.exceptions.UsageError as exc:
        exc.show()
        return EXIT_USAGE
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code or EXIT_FAILURE
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except MaintainerError as exc:
        log.error(str(exc), extra=fields(event="error", exit_code=exc.exit_code))
        return exc.exit_code
    return result if isinstance(result, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
